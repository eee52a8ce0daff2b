// The socket contract lives in packages/shared (it crosses the process boundary to the browser).
export {
  FILE_CHANGE_KINDS,
  fileChangedEvent,
  openFileEvent,
  type ClientToServerEvents,
  type FileChangedEvent,
  type FileChangeKind,
  type OpenFileEvent,
  type ServerToClientEvents,
} from "@textide/shared";
