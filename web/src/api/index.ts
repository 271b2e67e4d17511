export { ApiError, REQUEST_TIMEOUT_MS, getJson, requestJson, toErrorInfo } from './http';
export type { ErrorInfo, RequestOptions } from './http';
export { CLIENT_CODES, NOT_LOGGED_IN, fillPlaceholders, messageForCode } from './errors';
export {
  APP_ID, CLIENT_VERSION, SESSION_EXPIRED, apiDownload, apiGet, apiPost, configureTransport, ensureAppToken, fetchAppToken,
  readAppToken, setTransportLanguage, setUserToken,
} from './transport';
