/** Logical ids become part of addresses and state keys, so they are kept to a safe alphabet. */
export const LOGICAL_ID_PATTERN = /^[A-Za-z0-9_\-/#.]+$/;
