/**
 * A check's result kept for `ttlMs`, and one evaluation shared by every caller that asks meanwhile: probes every few
 * seconds (liveness and readiness from the kubelet, a person with curl) call Temporal or fork podman at most once per
 * ttl. Nothing is kept from an evaluation that threw: the next caller tries again.
 */
export function cachedFor<T>(ttlMs: number, evaluate: () => Promise<T>, now: () => number = Date.now): () => Promise<T> {
  let cached: { value: T; at: number } | undefined;
  let pending: Promise<T> | undefined;
  return () => {
    if (cached && now() - cached.at < ttlMs) return Promise.resolve(cached.value);
    pending ??= evaluate().then((value) => {
      cached = { value, at: now() };
      return value;
    }).finally(() => {
      pending = undefined;
    });
    return pending;
  };
}
