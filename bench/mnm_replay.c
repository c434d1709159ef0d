/* A cheap MNM load generator in C (for bench/cluster.py): the same clients as
 * bench/mnm_replay.py, without the interpreter's cost.  bench/mnm_replay_c.py compiles
 * it with the machine's `cc -O2` into a temporary folder; the Python replay is the
 * fallback when there is no compiler.
 *
 *     mnm_replay RECORDINGS BODY
 *
 * RECORDINGS: games recorded with the rules engine (mnm_replay_c.write_recordings):
 *
 *     <games>
 *     <plays of seat 0> <plays of seat 1> <Yes|No for seat 0> <Yes|No for seat 1> <decisions>
 *     PLAY ...            (seat 0's lines, then seat 1's)
 *
 * BODY: the JSON of POST /api/games.  Then one pass an input line (an order, the line
 * mnm_replay.Order writes):
 *
 *     <games> <concurrency> <cross 0|1> <seconds> <first> <web>:<mnm>[,<web>:<mnm>...]
 *
 * answered by one line of JSON: {"finished": n, "failures": [...], "start": t,
 * "end": t} (wall clock).  The input closed, the program ends.
 *
 * A seat is one course-style client, as mnm_replay.Seat: it sends VERSION <major>.0
 * after the banner, ID <game> once the version is accepted, PLAYER <n> after
 * + PLAYING, OKWAIT to + WAIT, THINKING after a move request's piece list and, once
 * the server answers + OKTHINK, its next recorded PLAY; it checks that the game ends
 * with the recorded results (+ PLAYERnWON ..., then + QUIT).  A move request after the
 * recording's last move, a "- " line or another result fails the game.  It reads what
 * the socket has at once (one recv an event) and writes each line when it is due
 * (THINKING and PLAY never in one packet: a client waits for + OKTHINK).
 *
 * Everything is non-blocking on one epoll (Linux); a pass is bounded by its seconds.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_DOORS 8
#define MAX_LINE 65536     /* a longer line from the server fails its game */
#define MAX_FAILURES 20    /* failures kept for the answer */
#define MAX_ID 128

/* -- recordings ------------------------------------------------------------------ */

struct recording {
    char **plays[2];   /* each seat's PLAY lines, with their newline */
    int count[2];
    char won[2][32];   /* "+ PLAYER0WON Yes" */
    int decisions;
};

static struct recording *recordings;
static int recorded;

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mnm_replay: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static void *must(void *p) {
    if (p == NULL)
        die("out of memory");
    return p;
}

static void load(const char *path) {
    FILE *f = fopen(path, "r");
    char line[512];
    if (f == NULL)
        die("cannot read %s", path);
    if (fscanf(f, "%d\n", &recorded) != 1 || recorded <= 0)
        die("%s: no recordings", path);
    recordings = must(calloc((size_t)recorded, sizeof *recordings));
    for (int g = 0; g < recorded; g++) {
        struct recording *r = &recordings[g];
        char yes[2][8];
        if (fscanf(f, "%d %d %7s %7s %d\n", &r->count[0], &r->count[1], yes[0], yes[1],
                   &r->decisions) != 5)
            die("%s: game %d: a bad header", path, g);
        for (int s = 0; s < 2; s++) {
            snprintf(r->won[s], sizeof r->won[s], "+ PLAYER%dWON %s", s, yes[s]);
            r->plays[s] = must(calloc((size_t)r->count[s] + 1, sizeof(char *)));
            for (int k = 0; k < r->count[s]; k++) {
                if (fgets(line, sizeof line, f) == NULL || strncmp(line, "PLAY ", 5) != 0)
                    die("%s: game %d: a missing PLAY line", path, g);
                r->plays[s][k] = must(strdup(line));
            }
        }
    }
    fclose(f);
}

/* -- connections ------------------------------------------------------------------ */

enum kind { SEAT, CREATOR };

struct slot;

struct conn {
    enum kind kind;
    int fd;
    int open;
    int connecting;          /* a creator's connection not yet made (it speaks first) */
    char *out;               /* what the socket did not take yet */
    size_t out_len;
    char *in;                /* an unfinished line (a seat) or an answer (a creator) */
    size_t in_len, in_cap;
    struct slot *slot;
    struct conn *next_closed;
    /* a seat */
    int seat;
    const struct recording *game;
    int next_play;
    int over, results, quit;
    char *error;
    /* a creator */
    int door;
    int waiting;             /* a creation under way */
    char *request;           /* its POST, head and body */
    size_t request_len;
};

struct slot {
    int index;
    int game;                /* the game number being played */
    int left;                /* seats still playing it */
    int failed;
    char game_id[MAX_ID];
    struct conn *creators[MAX_DOORS];
};

static struct {
    int epoll;
    int running;
    char *error;             /* why the pass was aborted */
    struct conn *closed;     /* freed after each batch of events */
    struct conn **open;      /* the open connections by their socket */
    int open_size;
    /* the order */
    int games, concurrency, cross, first;
    double seconds;
    int doors;
    int web[MAX_DOORS], mnm[MAX_DOORS];
    /* progress */
    int next_game, slots, ok;
    char *failures[MAX_FAILURES];
    int failure_count;
} pass;

static const char *body;

static char *text(const char *fmt, ...) {
    va_list ap;
    char *out;
    va_start(ap, fmt);
    if (vasprintf(&out, fmt, ap) < 0)
        die("out of memory");
    va_end(ap);
    return out;
}

static void abort_pass(char *why) {
    if (pass.error == NULL)
        pass.error = why;
    else
        free(why);
    pass.running = 0;
}

static void watch(struct conn *c, uint32_t events, int op) {
    struct epoll_event ev = {.events = events, .data.ptr = c};
    if (epoll_ctl(pass.epoll, op, c->fd, &ev) < 0)
        die("epoll_ctl: %s", strerror(errno));
}

static struct conn *connect_to(enum kind kind, int port) {
    struct conn *c = must(calloc(1, sizeof *c));
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int one = 1;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    c->kind = kind;
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0)
        die("socket: %s", strerror(errno));
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&to, sizeof to) < 0 && errno != EINPROGRESS)
        die("connecting to port %d: %s", port, strerror(errno));
    c->open = 1;
    if (c->fd >= pass.open_size) {
        int size = c->fd * 2 + 16;
        pass.open = must(realloc(pass.open, (size_t)size * sizeof *pass.open));
        memset(pass.open + pass.open_size, 0, (size_t)(size - pass.open_size) * sizeof *pass.open);
        pass.open_size = size;
    }
    pass.open[c->fd] = c;
    /* MNM's server speaks first: a seat waits for its first line, not for the connection */
    c->connecting = kind == CREATOR;
    watch(c, c->connecting ? EPOLLIN | EPOLLOUT : EPOLLIN, EPOLL_CTL_ADD);
    return c;
}

static void lost(struct conn *c, char *why);

/* Close a connection (once); its memory goes after the current batch of events. */
static void close_conn(struct conn *c, char *why) {
    if (!c->open) {
        free(why);
        return;
    }
    c->open = 0;
    pass.open[c->fd] = NULL;
    epoll_ctl(pass.epoll, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->next_closed = pass.closed;
    pass.closed = c;
    lost(c, why);
}

static void free_closed(void) {
    while (pass.closed != NULL) {
        struct conn *c = pass.closed;
        pass.closed = c->next_closed;
        free(c->out);
        free(c->in);
        free(c->error);
        free(c->request);
        free(c);
    }
}

/* Send now, or keep what the socket does not take yet. */
static void send_bytes(struct conn *c, const char *data, size_t len) {
    ssize_t sent = 0;
    if (!c->open)
        return;
    if (c->out_len == 0 && !c->connecting) {
        sent = send(c->fd, data, len, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                close_conn(c, text("send: %s", strerror(errno)));
                return;
            }
            sent = 0;
        }
        if ((size_t)sent == len)
            return;
        watch(c, EPOLLIN | EPOLLOUT, EPOLL_CTL_MOD);
    }
    c->out = must(realloc(c->out, c->out_len + len - (size_t)sent));
    memcpy(c->out + c->out_len, data + sent, len - (size_t)sent);
    c->out_len += len - (size_t)sent;
}

static void send_text(struct conn *c, const char *line) {
    send_bytes(c, line, strlen(line));
}

static void writable(struct conn *c) {
    if (c->connecting) {
        int code = 0;
        socklen_t size = sizeof code;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &code, &size);
        if (code) {
            close_conn(c, text("connect: %s", strerror(code)));
            return;
        }
        c->connecting = 0;
    }
    if (c->out_len) {
        ssize_t sent = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            close_conn(c, text("send: %s", strerror(errno)));
            return;
        }
        memmove(c->out, c->out + sent, c->out_len - (size_t)sent);
        c->out_len -= (size_t)sent;
    }
    if (c->out_len == 0)
        watch(c, EPOLLIN, EPOLL_CTL_MOD);
}

/* Keep `len` bytes after those kept (always followed by a NUL). */
static void keep(struct conn *c, const char *data, size_t len) {
    if (c->in_len + len + 1 > c->in_cap) {
        c->in_cap = (c->in_len + len + 1) * 2;
        c->in = must(realloc(c->in, c->in_cap));
    }
    memcpy(c->in + c->in_len, data, len);
    c->in_len += len;
    c->in[c->in_len] = '\0';
}

/* -- a seat ----------------------------------------------------------------------- */

static void fail(struct conn *c, char *why) {
    if (c->error == NULL)
        c->error = must(strdup(why));
    close_conn(c, why);
}

static int starts(const char *line, size_t len, const char *prefix) {
    size_t n = strlen(prefix);
    return len >= n && memcmp(line, prefix, n) == 0;
}

static int is(const char *line, size_t len, const char *word) {
    return len == strlen(word) && memcmp(line, word, len) == 0;
}

/* server lines a seat does not answer (the piece list, the player list, the move header) */
static const char *const skip[] = {"+ PIECE", "+ MOVE ", "+ CAPTU", "+ MOVEOK", "+ YOU ",
                                   "+ TOTAL", "+ Annou", NULL};

static void play_next(struct conn *c) {
    if (c->next_play >= c->game->count[c->seat]) {
        fail(c, text("the server asked for a move after the recorded game"));
        return;
    }
    send_text(c, c->game->plays[c->seat][c->next_play++]);
}

/* The prolog and the end of the game (a few lines a game); `line` has no newline. */
static void rare(struct conn *c, char *line, size_t len) {
    char buf[MAX_ID + 16];
    while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
        len--;
    line[len] = '\0';
    if (starts(line, len, "- ")) {
        fail(c, text("the server refused: %s", line));
    } else if (is(line, len, "+ GAMEOVER")) {
        c->over = 1;
    } else if (starts(line, len, "+ PLAYER") && len >= 13 && memcmp(line + 9, "WON ", 4) == 0) {
        if (!c->over || (strcmp(line, c->game->won[0]) != 0 && strcmp(line, c->game->won[1]) != 0))
            fail(c, text("not the recorded result: %s", line));
        c->results++;
    } else if (is(line, len, "+ QUIT")) {
        c->quit = c->over && c->results == 2;
    } else if (starts(line, len, "+ MNM Gameserver v")) {
        snprintf(buf, sizeof buf, "VERSION %d.0\n", atoi(line + 18));
        send_text(c, buf);
    } else if (starts(line, len, "+ Client version accepted")) {
        snprintf(buf, sizeof buf, "ID %s\n", c->slot->game_id);
        send_text(c, buf);
    } else if (starts(line, len, "+ PLAYING ")) {
        snprintf(buf, sizeof buf, "PLAYER %d\n", c->seat);
        send_text(c, buf);
    }
    /* the game's name, the other players and ENDPLAYERS need no answer */
}

static void seat_line(struct conn *c, char *line, size_t len) {
    for (const char *const *s = skip; *s != NULL; s++)
        if (starts(line, len, *s))
            return;
    if (is(line, len, "+ ENDPIECELIST")) {
        if (!c->over)
            send_text(c, "THINKING\n");
    } else if (is(line, len, "+ OKTHINK")) {
        play_next(c);
    } else if (is(line, len, "+ WAIT")) {
        send_text(c, "OKWAIT\n");
    } else {
        rare(c, line, len);
    }
}

static void seat_received(struct conn *c, char *data, size_t len) {
    char *line = data, *end = data + len, *nl;
    if (c->in_len) {  /* finish the line begun in an earlier packet */
        nl = memchr(data, '\n', len);
        if (nl == NULL) {
            if (c->in_len + len > MAX_LINE)
                fail(c, text("a line over %d bytes", MAX_LINE));
            else
                keep(c, data, len);
            return;
        }
        keep(c, data, (size_t)(nl - data) + 1);
        c->in[c->in_len - 1] = '\0';
        seat_line(c, c->in, c->in_len - 1);
        c->in_len = 0;
        line = nl + 1;
    }
    while (c->open && line < end && (nl = memchr(line, '\n', (size_t)(end - line))) != NULL) {
        *nl = '\0';
        seat_line(c, line, (size_t)(nl - line));
        line = nl + 1;
    }
    if (c->open && line < end) {
        if (end - line > MAX_LINE)
            fail(c, text("a line over %d bytes", MAX_LINE));
        else
            keep(c, line, (size_t)(end - line));
    }
}

static void start_game(struct slot *s);

static void failure(char *why) {
    if (pass.failure_count < MAX_FAILURES)
        pass.failures[pass.failure_count++] = why;
    else
        free(why);
}

static void seat_done(struct conn *c, const char *error) {
    struct slot *s = c->slot;
    if (error != NULL) {
        s->failed = 1;
        failure(text("game %s: %s", s->game_id, error));
    }
    if (--s->left == 0) {
        pass.ok += !s->failed;
        start_game(s);
    }
}

/* -- a creator: POST /api/games on a keep-alive connection --------------------------- */

/* The first "id" of the object at the top of `json` (no escapes in an id). */
static int top_level_id(const char *json, size_t len, char *id, size_t size) {
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = json[i];
        if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            depth--;
        } else if (ch == '"') {
            size_t start = ++i;
            while (i < len && json[i] != '"')
                i += json[i] == '\\' ? 2 : 1;
            if (i >= len)
                return 0;
            if (depth == 1 && i - start == 2 && memcmp(json + start, "id", 2) == 0) {
                size_t j = i + 1, k;
                while (j < len && (json[j] == ' ' || json[j] == ':'))
                    j++;
                if (j >= len || json[j] != '"')
                    return 0;
                for (k = ++j; k < len && json[k] != '"' && json[k] != '\\'; k++)
                    ;
                if (k >= len || json[k] != '"' || k - j >= size || k == j)
                    return 0;
                memcpy(id, json + j, k - j);
                id[k - j] = '\0';
                return 1;
            }
        }
    }
    return 0;
}

static char *find(char *hay, size_t len, const char *needle) {
    return memmem(hay, len, needle, strlen(needle));
}

/* A whole chunked body, unchunked in place: its length (-1: malformed). */
static long unchunk(char *data, size_t len) {
    size_t at = 0, out = 0;
    for (;;) {
        char *eol = find(data + at, len - at, "\r\n");
        unsigned long size;
        if (eol == NULL)
            return -1;
        size = strtoul(data + at, NULL, 16);
        at = (size_t)(eol - data) + 2;
        if (size == 0) {
            data[out] = '\0';
            return (long)out;
        }
        if (at + size + 2 > len)
            return -1;
        memmove(data + out, data + at, size);
        out += size;
        at += size + 2;
    }
}

static void creator_received(struct conn *c, const char *data, size_t len) {
    char *head_end, *at, *body_start, status[4] = "";
    long length;
    char id[MAX_ID];
    keep(c, data, len);
    head_end = find(c->in, c->in_len, "\r\n\r\n");
    if (head_end == NULL)
        return;
    body_start = head_end + 4;
    for (char *p = c->in; p < head_end; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    if (find(c->in, (size_t)(head_end - c->in), "\r\ntransfer-encoding: chunked") != NULL) {
        size_t have = c->in_len - (size_t)(body_start - c->in);
        if (have < 5 || memcmp(body_start + have - 5, "0\r\n\r\n", 5) != 0)
            return;  /* not whole yet */
        length = unchunk(body_start, have);
        if (length < 0) {
            abort_pass(text("a creation's answer is not chunked right"));
            return;
        }
    } else {
        at = find(c->in, (size_t)(head_end - c->in), "\r\ncontent-length:");
        if (at == NULL) {
            abort_pass(text("a creation's answer has no length"));
            return;
        }
        length = strtol(at + 17, NULL, 10);
        if ((long)(c->in_len - (size_t)(body_start - c->in)) < length)
            return;
    }
    at = memchr(c->in, ' ', (size_t)(head_end - c->in));
    if (at != NULL && head_end - at > 3)
        memcpy(status, at + 1, 3);
    c->in_len = 0;
    c->waiting = 0;
    if (strcmp(status, "201") != 0) {
        abort_pass(text("creating a game failed: %s %.300s", status, body_start));
        return;
    }
    if (!top_level_id(body_start, (size_t)length, id, sizeof id)) {
        abort_pass(text("a creation's answer names no game: %.300s", body_start));
        return;
    }
    struct slot *s = c->slot;
    snprintf(s->game_id, sizeof s->game_id, "%s", id);
    s->left = 2;
    s->failed = 0;
    for (int seat = 0; seat < 2; seat++) {
        int door = pass.cross ? (s->game + seat) % pass.doors : c->door;
        struct conn *p = connect_to(SEAT, pass.mnm[door]);
        p->slot = s;
        p->seat = seat;
        p->game = &recordings[(pass.first + s->game) % recorded];
    }
}

/* -- the pass --------------------------------------------------------------------- */

static void lost(struct conn *c, char *why) {
    if (c->kind == SEAT) {
        if (c->error == NULL && !c->quit)
            c->error = why != NULL ? must(strdup(why))
                                   : text("the server closed the connection before + QUIT");
        free(why);
        seat_done(c, c->error);
        return;
    }
    for (int d = 0; d < MAX_DOORS; d++)
        if (c->slot->creators[d] == c)
            c->slot->creators[d] = NULL;
    if (c->waiting || pass.running)
        abort_pass(text("the web connection closed: %s", why != NULL ? why : "by the hub"));
    free(why);
}

static void readable(struct conn *c) {
    static char data[65536];
    ssize_t got = recv(c->fd, data, sizeof data - 1, 0);
    if (got < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            close_conn(c, text("recv: %s", strerror(errno)));
        return;
    }
    if (got == 0) {
        close_conn(c, NULL);
        return;
    }
    if (c->kind == SEAT)
        seat_received(c, data, (size_t)got);
    else
        creator_received(c, data, (size_t)got);
}

static void start_game(struct slot *s) {
    int i = pass.next_game;
    if (i >= pass.games || !pass.running) {
        pass.slots--;
        return;
    }
    pass.next_game++;
    s->game = i;
    int home = i % pass.doors;
    struct conn *c = s->creators[home];
    if (c == NULL) {
        c = connect_to(CREATOR, pass.web[home]);
        c->slot = s;
        c->door = home;
        c->request = text("POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                          "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                          pass.web[home], strlen(body), body);
        c->request_len = strlen(c->request);
        s->creators[home] = c;
    }
    c->waiting = 1;
    send_bytes(c, c->request, c->request_len);
}

static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

static int parse_order(char *line) {
    char doors[512];
    if (sscanf(line, "%d %d %d %lf %d %511s", &pass.games, &pass.concurrency, &pass.cross,
               &pass.seconds, &pass.first, doors) != 6)
        return 0;
    pass.doors = 0;
    for (char *door = strtok(doors, ","); door != NULL; door = strtok(NULL, ",")) {
        if (pass.doors == MAX_DOORS ||
            sscanf(door, "%d:%d", &pass.web[pass.doors], &pass.mnm[pass.doors]) != 2)
            return 0;
        pass.doors++;
    }
    return pass.doors > 0 && pass.games >= 0 && pass.concurrency > 0;
}

static void run_pass(void) {
    struct slot *slots;
    struct epoll_event events[256];
    double start = now(CLOCK_REALTIME), deadline = now(CLOCK_MONOTONIC) + pass.seconds;
    int n = pass.concurrency < pass.games ? pass.concurrency : pass.games;

    pass.epoll = epoll_create1(EPOLL_CLOEXEC);
    if (pass.epoll < 0)
        die("epoll_create1: %s", strerror(errno));
    pass.running = 1;
    pass.error = NULL;
    pass.next_game = pass.slots = pass.ok = pass.failure_count = 0;
    slots = must(calloc((size_t)(n > 0 ? n : 1), sizeof *slots));
    for (int k = 0; k < n; k++) {
        slots[k].index = k;
        pass.slots++;
        start_game(&slots[k]);
    }
    while (pass.running && pass.slots > 0) {
        double left = deadline - now(CLOCK_MONOTONIC);
        int ready;
        if (left <= 0) {
            abort_pass(text("the pass took too long"));
            break;
        }
        ready = epoll_wait(pass.epoll, events, 256, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
        if (ready < 0 && errno != EINTR)
            die("epoll_wait: %s", strerror(errno));
        for (int k = 0; k < ready; k++) {
            struct conn *c = events[k].data.ptr;
            uint32_t got = events[k].events;
            if (!c->open)
                continue;  /* closed by an earlier event of this batch */
            if (got & EPOLLOUT)
                writable(c);
            if (c->open && got & (EPOLLIN | EPOLLERR | EPOLLHUP))
                readable(c);
        }
        free_closed();
    }
    pass.running = 0;
    for (int fd = 0; fd < pass.open_size; fd++)  /* the pass ended: what is open closes */
        if (pass.open[fd] != NULL)
            close_conn(pass.open[fd], text("the pass ended"));
    close(pass.epoll);
    free_closed();
    free(slots);

    printf("{\"finished\": %d, \"failures\": [", pass.ok);
    for (int k = 0; k < pass.failure_count; k++) {
        if (k)
            printf(", ");
        json_string(stdout, pass.failures[k]);
        free(pass.failures[k]);
    }
    if (pass.error != NULL) {
        if (pass.failure_count)
            printf(", ");
        json_string(stdout, pass.error);
        free(pass.error);
        pass.error = NULL;
    }
    printf("], \"start\": %.6f, \"end\": %.6f}\n", start, now(CLOCK_REALTIME));
    fflush(stdout);
}

int main(int argc, char **argv) {
    char line[1024];
    if (argc != 3)
        die("usage: mnm_replay RECORDINGS BODY");
    load(argv[1]);
    body = argv[2];
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (!parse_order(line))
            die("a bad order: %s", line);
        run_pass();
    }
    return 0;
}
