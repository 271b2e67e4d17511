import { runSaga, stdChannel, type Saga } from 'redux-saga';
import type { Action } from '@reduxjs/toolkit';

/** Runs a saga outside a store, recording what it dispatches and letting the test dispatch too. */
export function startSaga<S extends Saga>(saga: S, ...args: Parameters<S>) {
  const channel = stdChannel<Action>();
  const dispatched: Action[] = [];
  const task = runSaga(
    {
      channel,
      dispatch: (action: Action) => {
        dispatched.push(action);
        channel.put(action);
      },
      getState: () => ({}),
    },
    saga,
    ...args,
  );
  return {
    task,
    dispatched,
    types: () => dispatched.map((a) => a.type),
    dispatch: (action: Action) => channel.put(action),
  };
}
