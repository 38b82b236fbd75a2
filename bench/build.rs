//! Tells the harness which cargo profile it is built in (`release`, or `ci` for `make test`),
//! so it runs the apps built beside it: cargo puts a build script's output in
//! `<target>/<profile>/build/bench-<hash>/out`.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir =
        std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let profile = out_dir
        .ancestors()
        .nth(3)
        .and_then(|dir| dir.file_name())
        .and_then(|name| name.to_str())
        .expect("OUT_DIR is <target>/<profile>/build/<package>/out");
    println!("cargo:rustc-env=BLOGBENCH_PROFILE={profile}");
}
