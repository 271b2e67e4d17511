/** The payment pages by route name (spec 001 section 2.1, usercenter and fortunecenter). */
export { DepositPage, DepositProgressPage } from './DepositPages';
export { AccountsPage, AddAccountPage, TransferPage, WithdrawPage, WithdrawProgressPage } from './WithdrawPages';
export { FlowReportPage, FortuneCenterPage, MonthlyCardPage, ReportCenterPage } from './ReportPages';
export { PaymentRoute } from './PaymentRoute';
