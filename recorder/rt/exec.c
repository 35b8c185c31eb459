/* SPDX-License-Identifier: MIT */
/* exec.c - the exec family.  execve replaces the process: the events in
 * the open chunk, and those the writer thread had not written yet, would
 * vanish with it (a program that ran threads and then exec'd left an
 * empty trace).  So before the real call, everything recorded goes into
 * the file, followed by an END with reason "exec": the trace is whole
 * when the exec succeeds.  When it fails, the run goes on being recorded
 * and a later END replaces that one (the last END wins).
 *
 * The new image is not recorded into this trace: FORETELL_TRACE left the
 * environment at init, and the variable is also removed from an explicit
 * envp when it names this trace, so an instrumented image does not
 * truncate the file that holds the run so far (docs/recorder.md).  A
 * vfork child (same memory, other pid) and a fork child pass through. */
#define _GNU_SOURCE
#include "rt.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

int __real_execve(const char *path, char *const argv[], char *const envp[]);
int __real_execvpe(const char *file, char *const argv[], char *const envp[]);
int __real_fexecve(int fd, char *const argv[], char *const envp[]);

extern char **environ;

static ft_thread *before_exec(void)
{
    if (!ft_rt.recording || ft_rt.finished || getpid() != ft_rt.pid)
        return NULL;
    ft_thread *t = ft_enter();
    if (!t)
        return NULL;
    ft_lock();
    ft_trace_exec();
    ft_unlock();
    return t;
}

static void after_exec(ft_thread *t)
{
    if (t)
        ft_leave(t);
}

/* Whether env entry e is FORETELL_TRACE naming this run's trace. */
static int names_our_trace(const char *e)
{
    static const char key[] = "FORETELL_TRACE=";
    return !strncmp(e, key, sizeof key - 1) &&
           ft_trace_is_ours(e + sizeof key - 1);
}

/* envp without our FORETELL_TRACE, into out[n + 1] (n: entries of envp). */
static char *const *filtered(char *const envp[], char **out)
{
    size_t k = 0;
    for (size_t i = 0; envp[i]; i++)
        if (!names_our_trace(envp[i]))
            out[k++] = envp[i];
    out[k] = NULL;
    return out;
}

static size_t count(char *const v[])
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

#define WITH_ENV(envp, call)                                                  \
    do {                                                                      \
        char *const *e_ = (envp) ? (envp) : (char *const *)environ;          \
        size_t n_ = count(e_);                                                \
        char *f_[n_ + 1];                                                     \
        char *const *env = e_ ? filtered(e_, f_) : e_;                        \
        ft_thread *t_ = before_exec();                                        \
        int rc_ = (call);                                                     \
        after_exec(t_);                                                       \
        return rc_;                                                           \
    } while (0)

int __wrap_execve(const char *path, char *const argv[], char *const envp[])
{
    WITH_ENV(envp, __real_execve(path, argv, env));
}

int __wrap_execv(const char *path, char *const argv[])
{
    WITH_ENV(NULL, __real_execve(path, argv, env));
}

int __wrap_execvpe(const char *file, char *const argv[], char *const envp[])
{
    WITH_ENV(envp, __real_execvpe(file, argv, env));
}

int __wrap_execvp(const char *file, char *const argv[])
{
    WITH_ENV(NULL, __real_execvpe(file, argv, env));
}

int __wrap_fexecve(int fd, char *const argv[], char *const envp[])
{
    WITH_ENV(envp, __real_fexecve(fd, argv, env));
}

/* The list forms: their arguments into an array, then the vector form
 * (how: 'l' execv, 'p' execvp, 'e' execve with the environment after
 * the NULL).  The LD_PRELOAD runtime's execl, execlp and execle come
 * here too (preload/preload.c). */
int ft_exec_list(int how, const char *path, const char *arg, va_list ap)
{
    size_t na = 1;
    va_list cp;
    va_copy(cp, ap);
    while (va_arg(cp, char *))
        na++;
    va_end(cp);
    char *argv[na + 1];
    argv[0] = (char *)arg;
    for (size_t i = 1; i <= na; i++) /* the last is the NULL */
        argv[i] = va_arg(ap, char *);
    if (how == 'e')
        return __wrap_execve(path, argv, va_arg(ap, char *const *));
    return how == 'p' ? __wrap_execvp(path, argv) : __wrap_execv(path, argv);
}

int __wrap_execl(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = ft_exec_list('l', path, arg, ap);
    va_end(ap);
    return rc;
}

int __wrap_execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = ft_exec_list('p', file, arg, ap);
    va_end(ap);
    return rc;
}

int __wrap_execle(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = ft_exec_list('e', path, arg, ap);
    va_end(ap);
    return rc;
}
