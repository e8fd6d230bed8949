// Consumer group session timing shared by every consumer group the service joins.

/**
 * The heartbeat interval for a session: the Java client's default 3 s, or a third of a shorter session (the
 * local service's 6 s), so a member survives one late heartbeat on a busy machine.
 */
export function heartbeatFor(sessionTimeoutMs: number): number {
  return Math.min(3_000, Math.floor(sessionTimeoutMs / 3));
}
