// `node --import ./bench/without-checksum/register.mjs dist/src/main.js`: the service with its SHA-256
// replaced by nothing (hooks.mjs), the reference bench:documents measures the checksum's cost against.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
