export * from './money';
export * from './currencies';
export * from './ids';
export * from './status';
export * from './payout';
