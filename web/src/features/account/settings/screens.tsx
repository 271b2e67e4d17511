/** The account chunk (app/AppRouter.tsx): the user centre and every /setting/* page by its route. */
import type { ComponentType } from 'react';
import type { Route, SettingPage } from '../../../app/routes';
import {
  ChangeLoginPassword, ChangeNickname, ChangeRealName, ChangeTradePassword, MailBind, PhoneBind, SetSecurityQuestion,
  UserCenter, UserInfoPage,
} from './SettingsPages';
import { ChangeLoginSteps, ChoseWaySet, EmailAddress, MyBirth, SafeCertificate, UntiedContact } from './SecurityPages';
import { SaferGamblingPage } from '../../safer/SaferPage';

const SETTINGS: Record<SettingPage, ComponentType> = {
  changenickname: ChangeNickname, changelogin: ChangeLoginPassword, changetrade: ChangeTradePassword,
  setsecurity: SetSecurityQuestion, phonebind: PhoneBind, mailbind: MailBind, changerealname: ChangeRealName,
  untiedphone: () => <UntiedContact item="phone" />, untiedmail: () => <UntiedContact item="email" />,
  chosewayset: ChoseWaySet, mybirth: MyBirth, emailadress: EmailAddress, safergambling: SaferGamblingPage,
};

export function AccountScreen({ route }: { route: Route }) {
  switch (route.page) {
    case 'usercenter': return <UserCenter />;
    case 'userinfo': return <UserInfoPage />;
    case 'loginSteps': return <ChangeLoginSteps key={route.way} way={route.way} />;
    case 'safeCertificate': return <SafeCertificate key={route.item} item={route.item} />;
    case 'setting': {
      const Page = SETTINGS[route.name];
      return <Page key={route.name} />;
    }
    default: return null;
  }
}
