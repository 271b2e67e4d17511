/**
 * Whether the live-chat sheet is open: one flag shared by the header's support-chat icon and the
 * floating live-chat icon (spec 000 section 2, spec 001 section 2.3), read with useSyncExternalStore.
 */
import { useSyncExternalStore } from 'react';

let open = false;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export const liveChat = {
  open() {
    open = true;
    emit();
  },
  close() {
    open = false;
    emit();
  },
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
  isOpen: () => open,
};

export const useLiveChatOpen = () => useSyncExternalStore(liveChat.subscribe, liveChat.isOpen, liveChat.isOpen);
