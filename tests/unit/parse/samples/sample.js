import fs from "fs";

const MAX_RETRIES = 3;
let counter = 0;

export function readConfig(path) {
  return fs.readFileSync(path, "utf8");
}

const parseLine = (line) => {
  return line.trim();
};

export const handler = async function (event) {
  return event;
};

class Server extends Base {
  constructor(port) {
    super();
    this.port = port;
  }

  start() {
    function local() {
      return 1;
    }
    return local();
  }

  static create() {
    return new Server(80);
  }
}

module.exports = { readConfig, Server };
