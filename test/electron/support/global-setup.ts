// Says once, at the top of the run, whether the Electron launch tests run here and if not, why.
import { electronRequired, whyNotRunnable } from './electron-app';

export default function globalSetup(): void {
  const reason = whyNotRunnable();
  if (!reason) return;
  const verdict = electronRequired ? 'FAIL (PAYOUT_DESK_REQUIRE_ELECTRON=1)' : 'are SKIPPED';
  console.log(`\nElectron launch tests ${verdict}: ${reason}\n`);
}
