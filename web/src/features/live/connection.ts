/**
 * The Swarm connection of the running session, for commands outside the feed
 * (do_bet, get_max_bet): the live saga registers it once the session is up and
 * drops it when the session ends. Without one a command fails like a lost socket.
 */
import type { SwarmConnection } from '../../api/swarm';

let active: SwarmConnection | null = null;

export const setActiveConnection = (conn: SwarmConnection | null) => void (active = conn);
export const clearActiveConnection = (conn: SwarmConnection) => void (active === conn && (active = null));
export const activeConnection = () => active;

/** One command on the live session; rejects with a SwarmError on a non-zero code. */
export function swarmRequest<T = unknown>(command: string, params: Record<string, unknown> = {}): Promise<T> {
  if (!active) return Promise.reject(new Error('websocket closed'));
  return active.request<T>(command, params);
}
