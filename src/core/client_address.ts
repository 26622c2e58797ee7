/** The address a request came from: the socket's peer, or what trusted proxies in front of the service saw. */

/**
 * The client's address. With `trustedHops` proxies in front (TRUSTED_PROXY_HOPS), each appending the address it
 * saw to X-Forwarded-For, the client is the entry `trustedHops` from the right: entries further left are what the
 * client itself sent and prove nothing. Without a socket (app.handle in tests) and without trusted hops: "local".
 */
export function clientAddress(request: Request, socketAddress: string | null, trustedHops: number): string {
  if (trustedHops > 0) {
    const forwarded = (request.headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "");
    const seen = forwarded[forwarded.length - trustedHops];
    if (seen) return seen.slice(0, 64);
  }
  return socketAddress ?? "local";
}
