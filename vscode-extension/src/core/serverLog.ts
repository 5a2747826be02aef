// Sorts the server's stderr lines into log levels. The server writes each log record to stderr and also sends it as
// window/logMessage; the stderr copy of a record is shown only at debug level so the channel does not show it twice,
// while anything else on stderr (a crash, an import error before the protocol is up) stays an error.

export type LineLevel = 'debug' | 'error';

/** `%(asctime)s %(levelname)s %(name)s: %(message)s`, the server's stderr record format. */
const RECORD_START = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) /;
const TRACEBACK_START = 'Traceback (most recent call last):';

export class StderrClassifier {
    /** Inside a record's continuation (its traceback). */
    private inRecord = false;
    private previousIndented = false;

    levelOf(line: string): LineLevel {
        const indented = /^\s/.test(line);
        let level: LineLevel;
        if (RECORD_START.test(line)) {
            this.inRecord = true;
            level = 'debug';
        } else if (this.inRecord && (indented || line === '' || line.startsWith(TRACEBACK_START) || this.previousIndented)) {
            // The traceback of a logged exception, up to and including its final "SomeError: ..." line.
            level = 'debug';
        } else {
            this.inRecord = false;
            level = 'error';
        }
        this.previousIndented = indented;
        return level;
    }
}
