/* SPDX-License-Identifier: MIT */
/* backend.c - which runtime a program under test gets.  A program built
 * with foretell-cc carries the runtime (whole-archive) and is run as it
 * is.  A dynamically linked program that does not gets the same runtime
 * as an LD_PRELOAD library (recorder/rt/preload/preload.c), which sees
 * its synchronisation and not its memory accesses; the harness says so
 * once on stderr.  The choice is made in the parent, before any fork
 * (fr_backend_prepare), and applied to the program's environment:
 * in record's child before exec (fr_backend_apply), in the environment
 * the replay harness builds before it forks (fr_backend_env: replay,
 * the confirmations, explore).  Anything else (a script,
 * a static binary, a program that starts no thread: a launcher such as
 * timeout) is run as it is, and the harness's "no foretell runtime
 * started" message follows as before; --backend preload forces the
 * library on any dynamically linked program.  `record` alone has a third
 * way (fr_backend_prepare_record): a program without the runtime is run
 * under Valgrind with foretell's tool (recorder/valgrind/), which records
 * its memory accesses too; auto takes it when Valgrind and the tool are
 * installed. */
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

/* Whether the file at path holds TSan-instrumented code (imports
 * __tsan_init): a library built with foretell-cc. */
static int file_instrumented(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    int yes = 0;
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        st.st_size < ((off_t)1 << 36)) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
                       0);
        if (m != MAP_FAILED) {
            yes = memmem(m, (size_t)st.st_size, "__tsan_init", 11) != NULL;
            munmap(m, (size_t)st.st_size);
        }
    }
    close(fd);
    return yes;
}

/* Whether a library the ELF image m needs (DT_NEEDED, looked up in its
 * RPATH/RUNPATH, $ORIGIN expanded, and LD_LIBRARY_PATH; the system's
 * directories hold none of ours) was built with foretell-cc: such a host
 * runs with the LD_PRELOAD runtime, which the library needs. */
static int needs_instrumented(const unsigned char *m, size_t n,
                              const char *file)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff >= n ||
        eh->e_shnum > (n - eh->e_shoff) / sizeof(Elf64_Shdr))
        return 0;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);
    char origin[4096];
    snprintf(origin, sizeof origin, "%s", file);
    char *slash = strrchr(origin, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(origin, sizeof origin, ".");
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNAMIC || sh[i].sh_link >= eh->e_shnum ||
            sh[i].sh_offset > n || sh[i].sh_size > n - sh[i].sh_offset)
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (str->sh_offset > n || str->sh_size > n - str->sh_offset ||
            !str->sh_size)
            continue;
        const char *strs = (const char *)m + str->sh_offset;
        const Elf64_Dyn *d = (const Elf64_Dyn *)(m + sh[i].sh_offset);
        size_t nd = sh[i].sh_size / sizeof *d;
        char dirs[8192] = "";
        const char *env = getenv("LD_LIBRARY_PATH");
        for (size_t k = 0; k < nd; k++)
            if ((d[k].d_tag == DT_RPATH || d[k].d_tag == DT_RUNPATH) &&
                d[k].d_un.d_val < str->sh_size &&
                memchr(strs + d[k].d_un.d_val, 0,
                       str->sh_size - d[k].d_un.d_val))
                snprintf(dirs + strlen(dirs), sizeof dirs - strlen(dirs),
                         "%s:", strs + d[k].d_un.d_val);
        if (env)
            snprintf(dirs + strlen(dirs), sizeof dirs - strlen(dirs), "%s",
                     env);
        for (size_t k = 0; k < nd; k++) {
            if (d[k].d_tag != DT_NEEDED || d[k].d_un.d_val >= str->sh_size ||
                !memchr(strs + d[k].d_un.d_val, 0,
                        str->sh_size - d[k].d_un.d_val))
                continue;
            const char *lib = strs + d[k].d_un.d_val;
            for (const char *p = dirs; *p;) {
                size_t len = strcspn(p, ":");
                char dir[4096], path[8400];
                snprintf(dir, sizeof dir, "%.*s", (int)len, p);
                if (!strncmp(dir, "$ORIGIN", 7))
                    snprintf(path, sizeof path, "%s%s/%s", origin, dir + 7,
                             lib);
                else
                    snprintf(path, sizeof path, "%s/%s", len ? dir : ".",
                             lib);
                if (access(path, R_OK) == 0) {
                    if (file_instrumented(path))
                        return 1;
                    break;
                }
                p += len + (p[len] == ':');
            }
        }
    }
    return 0;
}

/* 1: file is a dynamically linked ELF executable (it has an interpreter,
 * so LD_PRELOAD reaches it), 0: something else; *elf whether it is an
 * ELF file at all (not a script), *has_rt whether the runtime is linked
 * in, *threads whether it starts threads. */
static int inspect_libs(const char *file, int *elf, int *has_rt,
                        int *threads, int *ft_libs)
{
    *elf = *has_rt = *threads = 0;
    if (ft_libs)
        *ft_libs = 0;
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
            if (ft_libs && dyn && !*has_rt)
                *ft_libs = needs_instrumented(m, n, file);
            munmap((void *)m, n);
        }
    }
    close(fd);
    return dyn;
}

static int inspect(const char *file, int *elf, int *has_rt, int *threads)
{
    return inspect_libs(file, elf, has_rt, threads, NULL);
}

/* path into buf when path/probe (probe NULL: path itself) is readable */
static const char *lib_at(char *buf, size_t len, const char *path,
                          const char *probe)
{
    char file[8400];
    snprintf(file, sizeof file, "%s%s%s", path, probe ? "/" : "",
             probe ? probe : "");
    size_t n = strlen(path);
    if (access(file, R_OK) != 0 || n >= len)
        return NULL;
    memcpy(buf, path, n + 1);
    return buf;
}

/* What foretell ships beside its commands, named name (a library, or a
 * directory holding probe): $env, else the build tree (bin/../lib), else
 * the installation's libdir relative to its bindir, else the installed
 * libdir; NULL if none holds it. */
static const char *find_lib(const char *env_name, const char *name,
                            const char *probe, char *buf, size_t len)
{
    const char *env = getenv(env_name);
    if (env && *env)
        return lib_at(buf, len, env, probe);
    char exe[4096], path[8300];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        exe[k] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        snprintf(path, sizeof path, "%s/../lib/%s", exe, name);
        if (lib_at(buf, len, path, probe))
            return buf;
#ifdef FT_LIB_FROM_BIN
        if (FT_LIB_FROM_BIN[0] == '/')
            snprintf(path, sizeof path, "%s/%s", FT_LIB_FROM_BIN, name);
        else
            snprintf(path, sizeof path, "%s/%s/%s", exe, FT_LIB_FROM_BIN,
                     name);
        if (lib_at(buf, len, path, probe))
            return buf;
#endif
    }
#ifdef FT_INSTALL_LIBDIR
    snprintf(path, sizeof path, "%s/%s", FT_INSTALL_LIBDIR, name);
    if (lib_at(buf, len, path, probe))
        return buf;
#endif
    return NULL;
}

const char *fr_preload_path(char *buf, size_t len)
{
    return find_lib("FORETELL_PRELOAD", PRELOAD_NAME, NULL, buf, len);
}

int fr_backend_prepare(const char *prog, int want, FILE *note, ft_error *err)
{
    char where[4096];
    const char *file = fr_which(prog, where, sizeof where);
    int elf = 0, has_rt = 0, threads = 0,
        dyn = file ? inspect(file, &elf, &has_rt, &threads) : 0;
    snprintf(chosen.prog, sizeof chosen.prog, "%s", prog);
    chosen.backend = FR_BACKEND_RUNTIME;
    if (want == FR_BACKEND_VALGRIND) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%s", prog);
        snprintf(err->message, sizeof err->message, "--backend valgrind "
                 "records only (foretell record); replay and explore run a "
                 "program not built with foretell-cc with --backend "
                 "preload");
        return -1;
    }
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
    if (!strcmp(s, "valgrind"))
        return FR_BACKEND_VALGRIND;
    return -1;
}

/* ---- the Valgrind recorder (record only) -------------------------- */

#define VG_TOOL "foretell-amd64-linux"
#define VG_DIR "foretell-valgrind"

const char *fr_valgrind_dir(char *buf, size_t len)
{
    return find_lib("FORETELL_VALGRIND_LIB", VG_DIR, VG_TOOL, buf, len);
}

int fr_backend_prepare_record(const char *prog, int want, FILE *note,
                              ft_error *err)
{
    char where[4096], vg[4096], dir[4096];
    const char *file = fr_which(prog, where, sizeof where);
    int elf = 0, has_rt = 0, threads = 0, ft_libs = 0,
        dyn = file ? inspect_libs(file, &elf, &has_rt, &threads, &ft_libs)
                   : 0;
    /* auto: a host of a library built with foretell-cc gets the
     * LD_PRELOAD runtime, which records that library's accesses */
    if (want != FR_BACKEND_VALGRIND &&
        !(want == FR_BACKEND_AUTO && elf && dyn && !has_rt && threads &&
          !ft_libs))
        return fr_backend_prepare(prog, want, note, err);
    const char *missing = !fr_which("valgrind", vg, sizeof vg)
                              ? "valgrind is not installed (Debian: apt "
                                "install valgrind)"
                          : !fr_valgrind_dir(dir, sizeof dir)
                              ? "foretell's Valgrind tool (" VG_DIR "/"
                                VG_TOOL ") was not found beside foretell "
                                "or in FORETELL_VALGRIND_LIB"
                              : NULL;
    if (missing && want == FR_BACKEND_AUTO) {
        if (note)
            fprintf(note, "foretell: note: %s: %s; recording "
                    "synchronisation only\n", prog, missing);
        return fr_backend_prepare(prog, want, note, err);
    }
    if (missing) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%s", prog);
        snprintf(err->message, sizeof err->message, "--backend valgrind: "
                 "%s", missing);
        return -1;
    }
    snprintf(chosen.prog, sizeof chosen.prog, "%s", prog);
    chosen.backend = FR_BACKEND_VALGRIND;
    chosen.why = NULL;
    if (note && has_rt)
        fprintf(note, "foretell: warning: %s was built with foretell-cc; "
                "--backend valgrind records it with a second runtime in "
                "it\n", prog);
    else if (note)
        fprintf(note, "foretell: note: %s was not built with foretell-cc: "
                "recording it under Valgrind, every memory access with its "
                "value (tens of times slower than native; "
                "docs/recorder.md)\n", prog);
    return FR_BACKEND_VALGRIND;
}

int fr_program_has_runtime(const char *prog)
{
    char where[4096];
    const char *file = fr_which(prog, where, sizeof where);
    int elf = 0, has_rt = 0, threads = 0, ft_libs = 0;
    if (file)
        inspect_libs(file, &elf, &has_rt, &threads, &ft_libs);
    return has_rt || ft_libs || !elf; /* a script: whatever it runs */
}

int fr_backend_is_valgrind(const char *prog)
{
    return chosen.backend == FR_BACKEND_VALGRIND &&
           !strcmp(prog, chosen.prog);
}

void fr_valgrind_exec(char **args, const char *raw)
{
    char dir[4096], opt[8300];
    if (!fr_valgrind_dir(dir, sizeof dir))
        return;
    setenv("VALGRIND_LIB", dir, 1);
    snprintf(opt, sizeof opt, "--foretell-raw=%s", raw);
    size_t n = 0;
    while (args[n])
        n++;
    char **v = calloc(n + 5, sizeof *v);
    if (!v)
        return;
    v[0] = "valgrind";
    v[1] = "-q";
    v[2] = "--tool=foretell";
    v[3] = opt;
    memcpy(v + 4, args, n * sizeof *v);
    execvp("valgrind", v);
    free(v);
}
