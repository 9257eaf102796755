/** Hosts that never leave the machine, where plain http cannot leak a token. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '::1' || hostname === '[::1]' || hostname.startsWith('127.');
}

/**
 * What is wrong with an API base URL, as messages; the one rule set behind both
 * the config check (`source.base_url`) and the client's own option check.
 * https is required unless the host is loopback or insecure http is allowed
 * explicitly: the bearer token travels in every request (API document, Authentication).
 */
export function baseUrlProblems(url: URL, allowInsecureHttp: boolean): string[] {
  const problems: string[] = [];
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    problems.push(`expected an http(s) URL, got ${url.protocol}`);
  } else if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecureHttp) {
    problems.push('must use https unless the host is loopback; set source.allow_insecure_http: true to override');
  }
  if (url.username || url.password) problems.push('must not carry credentials; use the token');
  return problems;
}
