// The shared vector files, read from the repository (tests only: the app reads nothing outside
// its folder at run time).
import { readFileSync } from 'node:fs'

export function readShared(path) {
  return JSON.parse(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8'))
}
