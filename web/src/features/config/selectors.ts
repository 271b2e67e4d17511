import type { RootState } from '../../app/store';

export const selectConfigStatus = (state: RootState) => state.config.status;
export const selectConfig = (state: RootState) => state.config.conf;
export const selectConfigError = (state: RootState) => state.config.error;
export const selectBrand = (state: RootState) => state.config.conf?.brand ?? '';
export const selectLogoUrl = (state: RootState) => state.config.conf?.logo_url;

const EMPTY: string[] = [];
export const selectMainMenu = (state: RootState) => state.config.conf?.main_menu_order ?? EMPTY;
