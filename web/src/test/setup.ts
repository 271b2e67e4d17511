import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
// The i18next chunk, as the app's boot loads it before any language (features/i18n/sagas.ts).
import '../features/i18n/engine';

// jsdom has no scrolling; navigate() scrolls to the top.
window.scrollTo = () => {};

afterEach(() => {
  cleanup();
  localStorage.clear();
});
