// A value made at its first use and kept from then on. For module-level zod schemas that few commands use: a
// schema built when its module loads costs every command's start (issue 26: in a CLI command, building zod
// schemas was a large part of evaluating the modules it loads).
export function lazy<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
