import { Suspense } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { lazyRetry } from '../../app/lazyRetry';
import { realtimeActions } from '../realtime/realtimeSlice';
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
// The reality check (a 1020 on /ws): when no other popup is open, one modal at a time.
const RealityCheckPopup = lazyRetry(() => import('../realtime/RealityCheckPopup').then((m) => ({ default: m.RealityCheckPopup })));

export function Popups() {
  const dispatch = useAppDispatch();
  const { popup, registerStep, emailConfirmed } = useAppSelector((s) => s.ui);
  const realityCheck = useAppSelector((s) => s.realtime.realityCheck !== null);
  if (!popup && !realityCheck) return null;
  return (
    <ChunkBoundary key={popup ?? 'reality'} overlay onClose={() => dispatch(popup ? uiActions.popupClosed() : realtimeActions.realityCheckClosed())}>
      <Suspense fallback={<div className="overlay overlay--sheet" aria-busy="true" />}>
        {popup === 'login' && <LoginPopup />}
        {popup === 'register' && <RegisterPopup key={registerStep} step={registerStep} />}
        {popup === 'registerSuccess' && <RegistrationSuccess />}
        {popup === 'forgot' && <ForgotPopup />}
        {popup === 'safetyConfirm' && <SafetyConfirm />}
        {popup === 'safety' && <SafetyPopup />}
        {popup === 'emailConfirm' && <EmailConfirmPopup ok={emailConfirmed} />}
        {!popup && <RealityCheckPopup />}
      </Suspense>
    </ChunkBoundary>
  );
}
