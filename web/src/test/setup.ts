import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// jsdom has no scrolling; navigate() scrolls to the top.
window.scrollTo = () => {};

afterEach(() => {
  cleanup();
  localStorage.clear();
});
