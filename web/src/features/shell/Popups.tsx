import { lazy, Suspense } from 'react';
import { useAppSelector } from '../../app/hooks';

// Popups load on first use: they stay out of the first-load bundle.
const LoginPopup = lazy(() => import('../session/LoginPopup').then((m) => ({ default: m.LoginPopup })));
const SafetyConfirm = lazy(() => import('../session/SafetyPopup').then((m) => ({ default: m.SafetyConfirm })));
const SafetyPopup = lazy(() => import('../session/SafetyPopup').then((m) => ({ default: m.SafetyPopup })));
const RegisterPopup = lazy(() => import('../account/RegisterPopup').then((m) => ({ default: m.RegisterPopup })));
const RegistrationSuccess = lazy(() => import('../account/RegisterPopup').then((m) => ({ default: m.RegistrationSuccess })));
const ForgotPopup = lazy(() => import('../account/ForgotPopup').then((m) => ({ default: m.ForgotPopup })));
const EmailConfirmPopup = lazy(() => import('../account/ForgotPopup').then((m) => ({ default: m.EmailConfirmPopup })));

export function Popups() {
  const { popup, registerStep, emailConfirmed } = useAppSelector((s) => s.ui);
  if (!popup) return null;
  return (
    <Suspense fallback={<div className="overlay overlay--sheet" aria-busy="true" />}>
      {popup === 'login' && <LoginPopup />}
      {popup === 'register' && <RegisterPopup key={registerStep} step={registerStep} />}
      {popup === 'registerSuccess' && <RegistrationSuccess />}
      {popup === 'forgot' && <ForgotPopup />}
      {popup === 'safetyConfirm' && <SafetyConfirm />}
      {popup === 'safety' && <SafetyPopup />}
      {popup === 'emailConfirm' && <EmailConfirmPopup ok={emailConfirmed} />}
    </Suspense>
  );
}
