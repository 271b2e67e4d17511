import { createSlice, original, type PayloadAction } from '@reduxjs/toolkit';
import { mergeDiff, type PushData } from '../../api/swarm';

/** A `get` query: levels and fields in `what`, filters in `where` (docs/protocol.md). */
export interface SwarmQuery {
  what: Record<string, string[] | '@count'>;
  where?: Record<string, Record<string, unknown>>;
}

export type ConnectionState = 'connecting' | 'open' | 'polling' | 'down';

export interface Subscription {
  query: SwarmQuery;
  /** Mounted components using it; at 0 it is dropped after a short linger. */
  refs: number;
  /** new: to be sent; pending: sent; ready: data held; error: refused. */
  status: 'new' | 'pending' | 'ready' | 'error';
  subid: string | null;
  data: unknown;
}

export interface LiveState {
  connection: ConnectionState;
  /** The websocket attempt under way (1..5), 0 once connected. */
  attempt: number;
  subs: Record<string, Subscription>;
}

const initialState: LiveState = { connection: 'connecting', attempt: 0, subs: {} };

/** Same what + where, same key (the server shares one subid for them too). */
export function queryKey(query: SwarmQuery): string {
  const stable = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, stable((v as Record<string, unknown>)[k])]))
      : v;
  return JSON.stringify(stable({ what: query.what, where: query.where ?? {} }));
}

const liveSlice = createSlice({
  name: 'live',
  initialState,
  reducers: {
    connectionChanged(state, action: PayloadAction<{ state: ConnectionState; attempt?: number }>) {
      state.connection = action.payload.state;
      state.attempt = action.payload.attempt ?? 0;
    },
    subscribeRequested(state, action: PayloadAction<{ key: string; query: SwarmQuery }>) {
      const { key, query } = action.payload;
      const sub = state.subs[key];
      if (sub) sub.refs += 1;
      else state.subs[key] = { query, refs: 1, status: 'new', subid: null, data: null };
    },
    unsubscribeRequested(state, action: PayloadAction<{ key: string }>) {
      const sub = state.subs[action.payload.key];
      if (sub) sub.refs = Math.max(0, sub.refs - 1);
    },
    subscribeSent(state, action: PayloadAction<{ key: string }>) {
      const sub = state.subs[action.payload.key];
      if (sub) sub.status = 'pending';
    },
    subscribed(state, action: PayloadAction<{ key: string; subid: string; data: unknown }>) {
      const sub = state.subs[action.payload.key];
      if (!sub) return;
      sub.status = 'ready';
      sub.subid = String(action.payload.subid);
      sub.data = action.payload.data;
    },
    subscribeFailed(state, action: PayloadAction<{ key: string }>) {
      const sub = state.subs[action.payload.key];
      if (sub) sub.status = 'error';
    },
    /** Dropped after its linger; the saga unsubscribes `subid` when it had one. */
    removed(state, action: PayloadAction<{ key: string; subid: string | null }>) {
      delete state.subs[action.payload.key];
    },
    /** A new session: every subscription is sent again (data stays on screen meanwhile). */
    sessionReset(state) {
      for (const sub of Object.values(state.subs)) {
        sub.status = 'new';
        sub.subid = null;
      }
    },
    /** `{subid: diff}`: each diff merges into the data of its subscription. */
    pushed(state, action: PayloadAction<PushData>) {
      const base = original(state)!;
      for (const [subid, diff] of Object.entries(action.payload)) {
        const key = Object.keys(base.subs).find((k) => base.subs[k]!.subid === subid);
        if (key) state.subs[key]!.data = mergeDiff(base.subs[key]!.data, diff);
      }
    },
  },
});

export const liveActions = liveSlice.actions;
export default liveSlice.reducer;
