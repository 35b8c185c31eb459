/* SPDX-License-Identifier: MIT */
/* backend.c - which runtime a program under test gets.  A program built
 * with foretell-cc carries the runtime (whole-archive) and is run as it
 * is.  A dynamically linked program that does not gets the same runtime
 * as an LD_PRELOAD library (recorder/rt/preload/preload.c), which sees
 * its synchronisation and not its memory accesses; the harness says so
 * once on stderr.  The choice is made in the parent, before any fork
 * (fr_backend_prepare), and applied in each child before exec
 * (fr_backend_apply): record, replay, the confirmations and explore all
 * start their runs through one of those two.  Anything else (a script,
 * a static binary, a program that starts no thread: a launcher such as
 * timeout) is run as it is, and the harness's "no foretell runtime
 * started" message follows as before; --backend preload forces the
 * library on any dynamically linked program. */
#define _GNU_SOURCE
#include "replay/replay.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PRELOAD_NAME "libforetell_preload.so"

/* The runtime's own tag (recorder/rt/init.c, ft_rt_verbose): every
 * program linked with the runtime holds it. */
static const char RT_MARK[] = "foretell-rt: ";

/* What the last fr_backend_prepare chose, for its children. */
static struct {
    char prog[4096];
    int backend; /* enum fr_backend */
    char preload[4096];
    const char *why; /* auto left a program without the runtime as it is */
} chosen;

/* Whether the ELF image m (n bytes) imports a thread-creating function
 * (pthread_create, or std::thread's start, whose pthread_create call
 * libstdc++ makes): a program that starts no thread is left alone (a
 * launcher such as timeout or env, or /bin/true, would otherwise run the
 * runtime itself). */
static int imports_threads(const unsigned char *m, size_t n)
{
    static const char *const names[] = {
        "pthread_create",
        "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14"
        "default_deleteIS1_EEPFvvE",
        NULL};
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff >= n ||
        eh->e_shnum > (n - eh->e_shoff) / sizeof(Elf64_Shdr))
        return 0;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum ||
            sh[i].sh_offset > n || sh[i].sh_size > n - sh[i].sh_offset)
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (str->sh_offset > n || str->sh_size > n - str->sh_offset)
            continue;
        const char *strs = (const char *)m + str->sh_offset;
        const Elf64_Sym *sym = (const Elf64_Sym *)(m + sh[i].sh_offset);
        size_t ns = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < ns; k++) {
            if (sym[k].st_shndx != SHN_UNDEF ||
                sym[k].st_name >= str->sh_size)
                continue;
            const char *nm = strs + sym[k].st_name;
            size_t left = str->sh_size - sym[k].st_name;
            for (const char *const *w = names; *w; w++)
                if (strnlen(nm, left) == strlen(*w) && !strcmp(nm, *w))
                    return 1;
        }
    }
    return 0;
}

/* 1: file is a dynamically linked ELF executable (it has an interpreter,
 * so LD_PRELOAD reaches it), 0: something else; *elf whether it is an
 * ELF file at all (not a script), *has_rt whether the runtime is linked
 * in, *threads whether it starts threads. */
static int inspect(const char *file, int *elf, int *has_rt, int *threads)
{
    *elf = *has_rt = *threads = 0;
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int dyn = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_size >= (off_t)sizeof(Elf64_Ehdr) &&
        st.st_size < ((off_t)1 << 36)) {
        const unsigned char *m =
            mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
            size_t n = (size_t)st.st_size;
            *elf = !memcmp(eh->e_ident, ELFMAG, SELFMAG);
            if (*elf && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
                eh->e_phentsize == sizeof(Elf64_Phdr) &&
                eh->e_phoff < n &&
                eh->e_phnum <= (n - eh->e_phoff) / sizeof(Elf64_Phdr))
                for (unsigned i = 0; i < eh->e_phnum; i++) {
                    const Elf64_Phdr *ph =
                        (const Elf64_Phdr *)(m + eh->e_phoff) + i;
                    dyn |= ph->p_type == PT_INTERP;
                }
            *has_rt = memmem(m, n, RT_MARK, sizeof RT_MARK - 1) != NULL;
            *threads = dyn && imports_threads(m, n);
            munmap((void *)m, n);
        }
    }
    close(fd);
    return dyn;
}

const char *fr_preload_path(char *buf, size_t len)
{
    const char *env = getenv("FORETELL_PRELOAD");
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return access(buf, R_OK) == 0 ? buf : NULL;
    }
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        exe[k] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        /* the build tree (bin/../lib), then the installation's libdir
         * relative to its bindir */
        snprintf(buf, len, "%s/../lib/%s", exe, PRELOAD_NAME);
        if (access(buf, R_OK) == 0)
            return buf;
#ifdef FT_LIB_FROM_BIN
        if (FT_LIB_FROM_BIN[0] == '/')
            snprintf(buf, len, "%s/%s", FT_LIB_FROM_BIN, PRELOAD_NAME);
        else
            snprintf(buf, len, "%s/%s/%s", exe, FT_LIB_FROM_BIN, PRELOAD_NAME);
        if (access(buf, R_OK) == 0)
            return buf;
#endif
    }
#ifdef FT_INSTALL_LIBDIR
    snprintf(buf, len, "%s/%s", FT_INSTALL_LIBDIR, PRELOAD_NAME);
    if (access(buf, R_OK) == 0)
        return buf;
#endif
    return NULL;
}

int fr_backend_prepare(const char *prog, int want, FILE *note, ft_error *err)
{
    char where[4096];
    const char *file = fr_which(prog, where, sizeof where);
    int elf = 0, has_rt = 0, threads = 0,
        dyn = file ? inspect(file, &elf, &has_rt, &threads) : 0;
    snprintf(chosen.prog, sizeof chosen.prog, "%s", prog);
    chosen.backend = FR_BACKEND_RUNTIME;
    chosen.preload[0] = 0;
    chosen.why = NULL;
    if (want == FR_BACKEND_AUTO && !has_rt && elf)
        chosen.why = !dyn ? "not a dynamically linked program, so the "
                            "LD_PRELOAD runtime cannot reach it either"
                          : !threads ? "it starts no thread; --backend "
                                       "preload runs it with the LD_PRELOAD "
                                       "runtime anyway"
                                     : NULL;
    if (want == FR_BACKEND_RUNTIME ||
        (want == FR_BACKEND_AUTO && (has_rt || !dyn || !threads)))
        return FR_BACKEND_RUNTIME; /* as it is: the runtime, or the
                                      harness says none started */
    if (!dyn) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%s", prog);
        snprintf(err->message, sizeof err->message, "--backend preload: "
                 "not a dynamically linked program (LD_PRELOAD cannot "
                 "reach it)");
        return -1;
    }
    if (!fr_preload_path(chosen.preload, sizeof chosen.preload)) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%s", prog);
        snprintf(err->message, sizeof err->message, "not built with "
                 "foretell-cc, and the LD_PRELOAD runtime (%s) was not "
                 "found beside foretell or in FORETELL_PRELOAD",
                 PRELOAD_NAME);
        return -1;
    }
    chosen.backend = FR_BACKEND_PRELOAD;
    if (note && has_rt)
        fprintf(note, "foretell: warning: %s was built with foretell-cc; "
                "--backend preload runs it with a second runtime\n", prog);
    else if (note)
        fprintf(note, "foretell: note: %s was not built with foretell-cc: "
                "running it with the LD_PRELOAD runtime, which sees its "
                "synchronisation, and memory accesses only in libraries "
                "built with foretell-cc (docs/recorder.md)\n", prog);
    return FR_BACKEND_PRELOAD;
}

void fr_backend_ensure(const char *prog)
{
    if (chosen.prog[0] && !strcmp(prog, chosen.prog))
        return;
    ft_error err;
    if (fr_backend_prepare(prog, FR_BACKEND_AUTO, stderr, &err) < 0)
        chosen.backend = FR_BACKEND_RUNTIME; /* the harness says why */
}

const char *fr_backend_why(const char *prog)
{
    return chosen.why && !strcmp(prog, chosen.prog) ? chosen.why : NULL;
}

const char *fr_backend_env(const char *prog, char *buf, size_t len)
{
    if (chosen.backend != FR_BACKEND_PRELOAD || strcmp(prog, chosen.prog))
        return NULL;
    const char *old = getenv("LD_PRELOAD");
    int n = old && *old ? snprintf(buf, len, "LD_PRELOAD=%s:%s",
                                   chosen.preload, old)
                        : snprintf(buf, len, "LD_PRELOAD=%s", chosen.preload);
    return n > 0 && (size_t)n < len ? buf : NULL;
}

void fr_backend_apply(const char *prog)
{
    char buf[8400];
    if (fr_backend_env(prog, buf, sizeof buf))
        setenv("LD_PRELOAD", buf + strlen("LD_PRELOAD="), 1);
}

int fr_backend_parse(const char *s)
{
    if (!strcmp(s, "auto"))
        return FR_BACKEND_AUTO;
    if (!strcmp(s, "runtime"))
        return FR_BACKEND_RUNTIME;
    if (!strcmp(s, "preload"))
        return FR_BACKEND_PRELOAD;
    return -1;
}
