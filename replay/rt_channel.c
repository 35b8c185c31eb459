/* rt_channel.c - the status channel from the runtime to the harness
 * (docs/replay.md, "The status channel").  The runtime's own verdicts must
 * reach the user whatever the program does with its stdout and stderr
 * (replay -q sends them to /dev/null) and must not be confused with the
 * program's exit status (a program may exit 81 by itself).  So the harness
 * hands the runtime the write end of a pipe, FORETELL_STATUS_FD=N, and
 * reads it once the program has ended: each report is one line
 * "WORD STATUS MESSAGE".  Both ends are non-blocking: the runtime never
 * waits on a harness that reads only after the run, and the harness never
 * waits for the end of the pipe, which a child of the program may hold. */
#define _GNU_SOURCE
#include "replay/replay.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fr_channel_open(fr_channel *c)
{
    int fd[2];
    c->rd = c->wr = -1;
    if (pipe2(fd, O_CLOEXEC | O_NONBLOCK) < 0)
        return -1;
    c->rd = fd[0];
    c->wr = fd[1];
    return 0;
}

void fr_channel_child(const fr_channel *c)
{
    char buf[16];
    if (c->wr < 0 || fcntl(c->wr, F_SETFD, 0) < 0)
        return;
    snprintf(buf, sizeof buf, "%d", c->wr);
    setenv("FORETELL_STATUS_FD", buf, 1);
}

void fr_channel_parent(fr_channel *c)
{
    if (c->wr >= 0)
        close(c->wr);
    c->wr = -1;
}

int fr_channel_refusal(fr_channel *c, int *status, char *msg, size_t len)
{
    char buf[8192];
    size_t n = 0;
    ssize_t got;
    while (c->rd >= 0 && n < sizeof buf - 1 &&
           ((got = read(c->rd, buf + n, sizeof buf - 1 - n)) > 0 ||
            (got < 0 && errno == EINTR)))
        n += got > 0 ? (size_t)got : 0;
    buf[n] = 0;
    for (char *line = buf, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl)
            break; /* a cut line is no report */
        *nl = 0;
        int st, at = 0;
        if (sscanf(line, "refuse %d %n", &st, &at) == 1 && at > 0) {
            *status = st;
            snprintf(msg, len, "%s", line + at);
            return 1;
        }
    }
    return 0;
}

void fr_channel_close(fr_channel *c)
{
    fr_channel_parent(c);
    if (c->rd >= 0)
        close(c->rd);
    c->rd = -1;
}
