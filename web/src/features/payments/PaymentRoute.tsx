import './payments.css';
import type { PaymentPage } from '../../app/router';
import { DepositPage, DepositProgressPage } from './DepositPages';
import { FlowReportPage, FortuneCenterPage, MonthlyCardPage, ReportCenterPage } from './ReportPages';
import { UsdtHelpPage } from './UsdtHelp';
import { AccountsPage, AddAccountPage, TransferPage, WithdrawPage, WithdrawProgressPage } from './WithdrawPages';

/** One payment page by its route name. */
export function PaymentRoute({ name }: { name: PaymentPage }) {
  switch (name) {
    case 'deposit': return <DepositPage />;
    case 'depositprogress': return <DepositProgressPage />;
    case 'withdraw': return <WithdrawPage />;
    case 'submitwithdraw': return <WithdrawPage sub="submitwithdraw" />;
    case 'managebankcard': return <AccountsPage kind="card" />;
    case 'manageusdt': return <AccountsPage kind="usdt" />;
    case 'addbankcard': return <AddAccountPage kind="card" />;
    case 'addusdt': return <AddAccountPage kind="usdt" />;
    case 'withdrawprogress': return <WithdrawProgressPage />;
    case 'transfer': return <TransferPage />;
    case 'monthlyCard': return <MonthlyCardPage />;
    case 'fortunecenter': return <FortuneCenterPage />;
    case 'reportcenter': return <ReportCenterPage />;
    case 'flowreport': return <FlowReportPage />;
    case 'usdthelp': return <UsdtHelpPage />;
  }
}
