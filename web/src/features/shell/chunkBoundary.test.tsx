import { configureStore } from '@reduxjs/toolkit';
import { fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { Provider } from 'react-redux';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lazyRetry } from '../../app/lazyRetry';
import { rootReducer } from '../../app/store';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { ChunkBoundary } from './ChunkBoundary';

const eng = readSkin('languages/eng.json');
const Picks = () => <p>picks</p>;

/** A factory standing in for `import('./X').then((m) => ({ default: m.X }))` that rejects `failures` times first. */
function flakyImport(failures: number) {
  let calls = 0;
  const load = vi.fn(() => (++calls <= failures
    ? Promise.reject(new TypeError('Failed to fetch dynamically imported module'))
    : Promise.resolve({ default: Picks })));
  return load;
}

function renderRegion(load: ReturnType<typeof flakyImport>, overlay = false) {
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }) });
  store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
  const Region = lazyRetry(load);
  render(
    <Provider store={store}>
      <header>the header</header>
      <ChunkBoundary overlay={overlay}>
        <Suspense fallback={<div aria-busy="true" />}>
          <Region />
        </Suspense>
      </ChunkBoundary>
    </Provider>,
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('lazy chunks that fail to load (lazyRetry, ChunkBoundary)', () => {
  it('an import that fails once then succeeds renders the component', async () => {
    const load = flakyImport(1);
    renderRegion(load);
    expect(await screen.findByText('picks', {}, { timeout: 3000 })).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(2);
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
  });

  it('an import that always fails shows the message and a reload button, and the rest of the app stays mounted', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {}); // React reports the caught error
    const reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, reload });
    const load = flakyImport(Infinity);
    renderRegion(load);
    const error = await screen.findByTestId('chunk-error', {}, { timeout: 4000 });
    expect(load).toHaveBeenCalledTimes(3);
    expect(error).toHaveTextContent(eng['casino.error']!);
    expect(eng['casino.error']).toBe('Sorry something went wrong please try again later');
    expect(screen.getByText('the header')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: eng['boot.error.retry'] }));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('a region that covers the page (a popup) shows the message as a popup', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    renderRegion(flakyImport(Infinity), true);
    const error = await screen.findByTestId('chunk-error', {}, { timeout: 4000 });
    expect(error).toHaveClass('popup');
    expect(error.parentElement).toHaveClass('overlay');
  });

  it('a silent region draws nothing when it fails, and the rest stays', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const Broken = () => {
      throw new Error('boom');
    };
    render(<><header>the header</header><ChunkBoundary silent><Broken /></ChunkBoundary></>);
    expect(screen.getByText('the header')).toBeInTheDocument();
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
  });
});
