// zod's small build (zod/mini), with the English messages the full build sets up for itself. The schemas on
// the path of the CLI's light commands (profiles, sealed key files, the keyring agent's state) use it: the full
// build defines every schema type and method when it loads, a large part of a command's start on a slow
// machine (issue 26); the small one brings only the functions a schema calls. Both share zod's core: a full
// schema may contain a small one, and z.infer works on either. Import it as a namespace (import * as z): the
// bundler then keeps only the functions used.
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';
