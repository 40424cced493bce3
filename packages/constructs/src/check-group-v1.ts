import { CheckGroupV2, type CheckGroupV2Props } from './check-group-v2.js';

/** The props of a {@link CheckGroupV1}: those of a `CheckGroupV2`. */
export type CheckGroupV1Props = CheckGroupV2Props;

/**
 * Checkly's first check group, which a Checkly project's `CheckGroup` still means (the loader
 * serves `CheckGroup` from `checkly/constructs` as this class). It differs from
 * {@link CheckGroupV2} only in what omitted props mean: no `alertEscalationPolicy` imposes the
 * account's alert settings on every check of the group (`useGlobalAlertSettings: true`), no
 * `runParallel` runs them round-robin (`false`), and `doubleCheck` is accepted (deprecated) and
 * sent. Write `CheckGroupV2` for a group whose checks keep their own settings.
 */
export class CheckGroupV1 extends CheckGroupV2 {
  protected override isV1(): boolean {
    return true;
  }
}
