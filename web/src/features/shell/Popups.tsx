import { Suspense } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { lazyRetry } from '../../app/lazyRetry';
import { ChunkBoundary } from './ChunkBoundary';
import { uiActions } from './uiSlice';

// Popups load on first use: they stay out of the first-load bundle.
const LoginPopup = lazyRetry(() => import('../session/LoginPopup').then((m) => ({ default: m.LoginPopup })));
const SafetyConfirm = lazyRetry(() => import('../session/SafetyPopup').then((m) => ({ default: m.SafetyConfirm })));
const SafetyPopup = lazyRetry(() => import('../session/SafetyPopup').then((m) => ({ default: m.SafetyPopup })));
const RegisterPopup = lazyRetry(() => import('../account/RegisterPopup').then((m) => ({ default: m.RegisterPopup })));
const RegistrationSuccess = lazyRetry(() => import('../account/RegisterPopup').then((m) => ({ default: m.RegistrationSuccess })));
const ForgotPopup = lazyRetry(() => import('../account/ForgotPopup').then((m) => ({ default: m.ForgotPopup })));
const EmailConfirmPopup = lazyRetry(() => import('../account/ForgotPopup').then((m) => ({ default: m.EmailConfirmPopup })));

export function Popups() {
  const dispatch = useAppDispatch();
  const { popup, registerStep, emailConfirmed } = useAppSelector((s) => s.ui);
  if (!popup) return null;
  return (
    <ChunkBoundary key={popup} overlay onClose={() => dispatch(uiActions.popupClosed())}>
      <Suspense fallback={<div className="overlay overlay--sheet" aria-busy="true" />}>
        {popup === 'login' && <LoginPopup />}
        {popup === 'register' && <RegisterPopup key={registerStep} step={registerStep} />}
        {popup === 'registerSuccess' && <RegistrationSuccess />}
        {popup === 'forgot' && <ForgotPopup />}
        {popup === 'safetyConfirm' && <SafetyConfirm />}
        {popup === 'safety' && <SafetyPopup />}
        {popup === 'emailConfirm' && <EmailConfirmPopup ok={emailConfirmed} />}
      </Suspense>
    </ChunkBoundary>
  );
}
