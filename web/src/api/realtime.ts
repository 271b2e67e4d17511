/**
 * The realtime notification socket (docs/protocol.md "Realtime (/ws)"): JSON frames
 * `{type: "init" | "p" | "i"}` out; answers and notifications `{type, data, client_id}` in.
 */
export const REALTIME_PATH = '/ws';
export const OPEN_TIMEOUT_MS = 5000;

export type RealtimeEvent = { type: 'message'; data: Record<string, unknown> } | { type: 'closed' };

export interface RealtimeSocket {
  send(message: Record<string, unknown>): void;
  listen(listener: (event: RealtimeEvent) => void): () => void;
  close(): void;
}

export function realtimeUrl(location: Pick<Location, 'protocol' | 'host'> = window.location) {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${REALTIME_PATH}`;
}

export function openRealtime(url = realtimeUrl(), timeoutMs = OPEN_TIMEOUT_MS): Promise<RealtimeSocket> {
  return new Promise((resolve, reject) => {
    if (typeof WebSocket === 'undefined') return reject(new Error('no WebSocket'));
    const ws = new WebSocket(url);
    const listeners = new Set<(event: RealtimeEvent) => void>();
    let closed = false;
    const emit = (event: RealtimeEvent) => [...listeners].forEach((l) => l(event));
    const end = () => {
      if (closed) return;
      closed = true;
      emit({ type: 'closed' });
    };
    const timer = setTimeout(() => {
      ws.close();
      reject(new Error('websocket timeout'));
    }, timeoutMs);
    ws.onopen = () => {
      clearTimeout(timer);
      ws.onclose = end;
      ws.onerror = () => ws.close();
      ws.onmessage = (m) => {
        try {
          const data = JSON.parse(String(m.data)) as unknown;
          if (data && typeof data === 'object' && !Array.isArray(data)) emit({ type: 'message', data: data as Record<string, unknown> });
        } catch {
          /* not JSON: ignored */
        }
      };
      resolve({
        send: (message) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(message)),
        listen: (l) => (listeners.add(l), () => void listeners.delete(l)),
        close: () => {
          ws.close();
          end();
        },
      });
    };
    ws.onerror = () => {
      clearTimeout(timer);
      reject(new Error('websocket error'));
    };
  });
}
