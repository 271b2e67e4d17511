import type { RootState } from '../../app/store';
import { IDLE_FORM, type FormState } from './formsSlice';

export const selectForm = (id: string) => (state: RootState): FormState => state.forms[id] ?? IDLE_FORM;
