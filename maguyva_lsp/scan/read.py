"""Read one listed file safely: whatever it became since the scan, a bad entry costs only itself.

Between listing and reading, an entry can vanish, lose its permissions, become a folder, a FIFO (whose plain `open`
would block the indexer forever) or a socket, or grow past the size limit. The file is opened without blocking and
checked through its own handle (`fstat`), so what is judged is exactly what is read.
"""

from __future__ import annotations

import os
import stat

from maguyva_lsp.scan.skips import Skip, SkipReason, kind_of_mode, skip_for_os_error

# O_NONBLOCK keeps open() of a FIFO from waiting for a writer; O_BINARY stops Windows from translating newlines;
# O_NOCTTY keeps a terminal device from becoming the controlling one. Each is 0 where the platform lacks it.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOCTTY", 0)


def read_source(abs_path: str, max_size: int) -> bytes | Skip:
    """The bytes of a regular file of at most `max_size` bytes, or the Skip saying why not."""
    try:
        fd = os.open(abs_path, _OPEN_FLAGS)
    except IsADirectoryError:  # Windows refuses to open a folder; POSIX opens it and fstat says so below
        return Skip(SkipReason.CHANGED_TYPE, "now a folder")
    except OSError as exc:
        return skip_for_os_error(exc)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return Skip(SkipReason.CHANGED_TYPE, f"now {kind_of_mode(st.st_mode)}")
        if st.st_size > max_size:
            return Skip(SkipReason.TOO_LARGE, f"{st.st_size} bytes > max_file_size {max_size}")
        chunks: list[bytes] = []
        remaining = max_size + 1  # one byte more than allowed tells a file that grew past the limit while read
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as exc:
        return skip_for_os_error(exc)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_size:
        return Skip(SkipReason.TOO_LARGE, f"grew past max_file_size {max_size} while being read")
    return data
