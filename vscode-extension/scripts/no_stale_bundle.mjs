// Run by `npm run package` before vsce: the universal .vsix carries no server. A `bundled/` folder here
// is what scripts/package_platform.py writes for a platform build and removes after vsce; one that is
// still there was left by a run that was stopped during vsce, and .vscodeignore lets `bundled/**` in,
// so packaging now would ship a stale server (of another commit, maybe another platform) in the
// universal .vsix. Refuse, and say how to get rid of it. (Not removed here: a platform build running
// in another terminal may be using it.)
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const bundled = resolve(process.argv[2] ?? '.', 'bundled');
if (existsSync(bundled)) {
  console.error(
    `${bundled} is there: a platform build's server (scripts/package_platform.py writes it and removes it after vsce; ` +
      'this one was left by a run that was stopped). The universal .vsix must not carry it. ' +
      'Remove the folder (or let a platform build finish), then run `npm run package` again.',
  );
  process.exit(1);
}
