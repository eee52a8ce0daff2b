// Runs before every root script: the project needs Node 22+ (24 is pinned in devDependencies).
const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  console.error(
    `textide needs Node 22 or newer, but this shell runs Node ${process.versions.node}.\n` +
      "Run `npm install` first: it installs the pinned Node 24 (the `node` devDependency) into\n" +
      "node_modules/.bin, which npm scripts put first on PATH. Then use `npm start` / `npm test`.",
  );
  process.exit(1);
}
