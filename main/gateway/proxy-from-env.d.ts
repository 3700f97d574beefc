// proxy-from-env 2 ships no type declarations; this is the one function the transport uses.
declare module 'proxy-from-env' {
  /** The proxy URL that HTTP(S)_PROXY / ALL_PROXY / NO_PROXY give for `url`, or '' for none. */
  export function getProxyForUrl(url: string): string;
}
