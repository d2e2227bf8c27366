/**
 * Whether a request came from this machine. The simulators' web pages (a pull request, a merge request, an issue)
 * are read without credentials from loopback only, where a link clicked in a browser comes from; the sandbox listens
 * nowhere else unless told to.
 */
export function isLoopbackAddress(address: string | undefined): boolean {
  return /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/.test(address ?? '');
}
