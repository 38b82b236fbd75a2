#!/bin/sh
# Builds the app (bench.toml [build]): the list of the resolved artifacts that blogbench reads
# the key packages from, then the executable jar target/spring-webflux.jar, last, so that only a
# finished build leaves a jar newer than pom.xml. The versions are pinned by the Spring Boot
# parent in pom.xml; Maven downloads them once into its cache (~/.m2).
set -eu
mvn -B -q dependency:list -DoutputFile=target/dependencies.txt -DincludeScope=runtime
mvn -B -q -DskipTests package
