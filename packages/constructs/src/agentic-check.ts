/**
 * Checkly's `AgenticCheck`, accepted by name so a Checkly project's file loads, and refused where it
 * is created: an agentic check is a prompt carried out by Checkly's hosted AI agent, and nothing in
 * vigil (neither `vigil test` nor `vigil server`) can run one. Refusing it at its own line, rather
 * than at the import, lets the rest of the file's problems be reported with it.
 */
import type { CheckProps } from './check.js';
import { currentProject } from './project.js';
import { deferUserSource } from './source-location.js';

/** The props of Checkly's agentic check; vigil reads none of them. */
export interface AgenticCheckProps extends Omit<CheckProps, 'privateLocations' | 'runParallel' | 'retryStrategy' | 'shouldFail' | 'doubleCheck' | 'triggerIncident' | 'groupId' | 'frequency'> {
  /** What the agent should verify, in plain words. */
  prompt: string;
  frequency?: CheckProps['frequency'];
  agentRuntime?: { skills?: string[] };
}

export const AGENTIC_CHECK_MESSAGE = (logicalId: string) =>
  `AgenticCheck ${JSON.stringify(logicalId)} cannot run in vigil: an agentic check is a prompt carried out by Checkly's hosted AI agent, which vigil does not have`;

export const AGENTIC_CHECK_HINT =
  'Keep this check in Checkly (remove it from this project), or write what the prompt verifies as a BrowserCheck, MultiStepCheck or PlaywrightCheck.';

/** Refused at its `new` line with {@link AGENTIC_CHECK_MESSAGE}; never becomes a resource. */
export class AgenticCheck {
  readonly logicalId: string;
  readonly props: AgenticCheckProps;

  /**
   * @param logicalId the check's name in the Checkly project
   * @param props Checkly's props; not read
   */
  constructor(logicalId: string, props: AgenticCheckProps) {
    this.logicalId = logicalId;
    this.props = props;
    currentProject(`AgenticCheck ${JSON.stringify(logicalId)}`).refuse({
      severity: 'error',
      message: AGENTIC_CHECK_MESSAGE(logicalId),
      hint: AGENTIC_CHECK_HINT,
      source: deferUserSource(new.target),
    });
  }
}
