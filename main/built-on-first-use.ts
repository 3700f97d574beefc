// Module-level values that are costly to build (zod schemas, mostly) made at their first use instead of when
// their module loads: every CLI command loads the desk's modules, and most use only a few of these (issue 26,
// a CLI that starts fast; building the schemas of a module can take several milliseconds).

/** A getter that builds the value on its first call and returns that same value ever after. */
export function builtOnFirstUse<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
