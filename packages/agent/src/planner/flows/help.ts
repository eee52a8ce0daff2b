import { capabilities } from "../answers.js";
import { answer, type Flow } from "./context.js";

/* Help and anything unrecognised: what the offline planner can do, and how to get a real model. */

export const helpFlow: Flow = () =>
  answer(capabilities("This is the offline planner, textide's built-in rule-based assistant: no LLM is configured."));

export const unknownFlow: Flow = () => answer(capabilities());
