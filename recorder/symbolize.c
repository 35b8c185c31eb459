/* SPDX-License-Identifier: MIT */
/* symbolize.c - resolving a trace's sites to function, file, line and
 * column with libdw, after the run, so that the runtime never touches
 * DWARF.  Each module's ELF is opened by the path recorded in the trace
 * and must carry the recorded build id; results are appended as a SYMBOLS
 * chunk, so a trace recorded on one machine can be symbolised on another
 * that has the same binaries.
 *
 * Addresses: a site's offset is relative to its module's load base (the
 * runtime records dl_iterate_phdr's dlpi_addr, i.e. the load bias: 0 for
 * a non-PIE executable).  For ET_EXEC the link-time address is base +
 * offset; for ET_DYN (PIE, shared objects) it is the offset itself.  The
 * site is a return address, so we look up offset - 1, inside the call.
 *
 * With each site's file and line goes the text of that line (SOURCE),
 * read from the source file when it is there, and the types of the
 * globals and of the heap structs the line dereferences
 * (TYPES, recorder/dwtypes.c).
 *
 * Debug information comes from each module's own file unless the caller
 * asks for separate debuginfo too (FT_SYM_DEBUGINFO: build-id and
 * debug-link files, /usr/lib/debug).  Instrumented code always carries its
 * own DWARF (foretell-cc compiles with -g); the other modules only hold
 * return addresses into libraries (main's caller, interceptors' callers),
 * for which the symbol table's function name is enough, and loading
 * libc6-dbg's compressed DWARF for them cost 170 ms per recorded run. */
#include "recorder/dwtypes.h"
#include "recorder/reader_internal.h"
#include "recorder/straight.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *debuginfo_path;
static const Dwfl_Callbacks with_debuginfo = {
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

/* The module's own file only: -1 tells libdwfl to use the main ELF. */
static int own_file_only(Dwfl_Module *mod, void **userdata,
                         const char *modname, Dwarf_Addr base,
                         const char *file_name, const char *debuglink_file,
                         GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
    (void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
    return -1;
}

static const Dwfl_Callbacks own_file = {
    .find_debuginfo = own_file_only,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

typedef struct module_dw {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    GElf_Addr bias;
    int is_exec;
    int usable; /* 1 ok, 0 skipped */
    ft_straight *code; /* spans of straight-line code, NULL unknown */
} module_dw;

static void hex(const unsigned char *b, int n, char *out, size_t len)
{
    size_t k = 0;
    for (int i = 0; i < n && k + 3 <= len; i++)
        k += (size_t)snprintf(out + k, len - k, "%02x", b[i]);
    out[k] = 0;
}

/* The module of the ELF file at path in a new session, or NULL. */
static Dwfl_Module *report_file(Dwfl **dwfl, const Dwfl_Callbacks *cb,
                                const char *path)
{
    *dwfl = dwfl_begin(cb);
    if (!*dwfl)
        return NULL;
    /* A module path comes from the trace: a FIFO there must not hang
     * us, so the file is opened without blocking first (libdwfl takes
     * the descriptor on success, leaves it to us on failure). */
    int fd = ft_open_regular(path, NULL, NULL, 0);
    if (fd < 0)
        return NULL;
    dwfl_report_begin(*dwfl);
    Dwfl_Module *mod = dwfl_report_elf(*dwfl, path, path, fd, 0, false);
    dwfl_report_end(*dwfl, NULL, NULL);
    if (!mod)
        close(fd);
    return mod;
}

/* mod's GNU build id as lowercase hex into out ("" if none). */
static int module_build_id(Dwfl_Module *mod, char *out, size_t len)
{
    const unsigned char *bits;
    GElf_Addr vaddr;
    int n = dwfl_module_build_id(mod, &bits, &vaddr);
    out[0] = 0;
    if (n > 0)
        hex(bits, n, out, len);
    return n > 0;
}

static void open_module(module_dw *m, const ft_module *tm, unsigned flags,
                        FILE *warn)
{
    memset(m, 0, sizeof *m);
    m->mod = report_file(&m->dwfl, flags & FT_SYM_DEBUGINFO ? &with_debuginfo
                                                             : &own_file,
                         tm->path);
    if (!m->dwfl)
        return;
    Elf *elf = m->mod ? dwfl_module_getelf(m->mod, &m->bias) : NULL;
    if (!elf) {
        if (warn)
            fprintf(warn, "warning: cannot read module %s (%s); its sites "
                    "stay unsymbolised\n", tm->path, dwfl_errmsg(-1));
        return;
    }
    GElf_Ehdr eh;
    if (gelf_getehdr(elf, &eh))
        m->is_exec = eh.e_type == ET_EXEC;
    if (tm->build_id && tm->build_id[0]) {
        char got[129];
        module_build_id(m->mod, got, sizeof got);
        if (strcmp(got, tm->build_id)) {
            if (warn)
                fprintf(warn, "warning: %s has build id %s but the trace "
                        "recorded %s (rebuilt since?); its sites stay "
                        "unsymbolised\n", tm->path, got[0] ? got : "(none)",
                        tm->build_id);
            return;
        }
    }
    m->usable = 1;
    m->code = ft_straight_open(elf);
}

int ft_file_build_id(const char *path, char *out, size_t len)
{
    Dwfl *dwfl;
    Dwfl_Module *mod = report_file(&dwfl, &own_file, path);
    out[0] = 0;
    int rc = mod ? module_build_id(mod, out, len) : -1;
    if (dwfl)
        dwfl_end(dwfl);
    return rc;
}

/* Line info: the module's aranges first, then (clang objects often have
 * no .debug_aranges) every CU that covers the address. */
static const char *find_line(Dwfl_Module *mod, Dwarf_Addr a, int *line,
                             int *col)
{
    Dwfl_Line *l = dwfl_module_getsrc(mod, a);
    if (l) {
        Dwarf_Addr at;
        const char *f = dwfl_lineinfo(l, &at, line, col, NULL, NULL);
        if (f)
            return f;
    }
    Dwarf_Die *cu = NULL;
    Dwarf_Addr cb;
    while ((cu = dwfl_module_nextcu(mod, cu, &cb))) {
        if (dwarf_haspc(cu, a - cb) <= 0)
            continue;
        Dwarf_Line *dl = dwarf_getsrc_die(cu, a - cb);
        if (!dl)
            continue;
        dwarf_lineno(dl, line);
        dwarf_linecol(dl, col);
        return dwarf_linesrc(dl, NULL, NULL);
    }
    return NULL;
}

/* The compile unit that covers a (aranges first, then every CU, as
 * find_line does), with its address bias. */
static Dwarf_Die *cu_of(Dwfl_Module *mod, Dwarf_Addr a, Dwarf_Addr *bias)
{
    Dwarf_Die *cu = dwfl_module_addrdie(mod, a, bias);
    if (cu)
        return cu;
    while ((cu = dwfl_module_nextcu(mod, cu, bias)))
        if (dwarf_haspc(cu, a - *bias) > 0)
            return cu;
    return NULL;
}

/* For an address in code inlined from a system header (std::vector::at
 * inlined into main): where the chain of inlined calls entered the
 * program's own code, the innermost such call site; NULL if none. */
static const char *inlined_into(Dwfl_Module *mod, Dwarf_Addr a, int *line)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = cu_of(mod, a, &bias);
    Dwarf_Files *files;
    size_t nfiles;
    if (!cu || dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        return NULL;
    /* dwarf_getscopes follows an inlined instance to its abstract
     * definition; the concrete chain of callers is dwarf_getscopes_die's,
     * from the innermost scope. */
    Dwarf_Die *inner = NULL, *scopes = NULL;
    int n = dwarf_getscopes(cu, a - bias, &inner);
    if (n > 0 && dwarf_tag(&inner[0]) == DW_TAG_inlined_subroutine)
        n = dwarf_getscopes_die(&inner[0], &scopes);
    else
        n = 0;
    free(inner);
    const char *found = NULL;
    for (int i = 0; i < n && !found; i++) {
        Dwarf_Attribute at;
        Dwarf_Word f, l;
        if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine ||
            !dwarf_attr(&scopes[i], DW_AT_call_file, &at) ||
            dwarf_formudata(&at, &f) != 0 ||
            !dwarf_attr(&scopes[i], DW_AT_call_line, &at) ||
            dwarf_formudata(&at, &l) != 0 || f >= nfiles)
            continue;
        const char *file = dwarf_filesrc(files, f, NULL, NULL);
        if (file && !ft_path_is_system(file)) {
            found = file;
            *line = (int)l;
        }
    }
    free(scopes);
    return found;
}

/* libstdc++'s demangler (the Itanium C++ ABI's entry point, C linkage). */
char *__cxa_demangle(const char *mangled, char *out, size_t *len,
                     int *status);

/* A C++ symbol as people read it ("(anonymous namespace)::spend(void*)"
 * for "_ZN12_GLOBAL__N_15spendEPv"), in buf; anything else as it is. */
static const char *demangled(const char *fn, char *buf, size_t len)
{
    if (!fn || fn[0] != '_' || fn[1] != 'Z')
        return fn;
    int status = -1;
    char *d = __cxa_demangle(fn, NULL, NULL, &status);
    if (d && status == 0 && strlen(d) < len) {
        memcpy(buf, d, strlen(d) + 1);
        fn = buf;
    }
    free(d);
    return fn;
}

static int emit(ft_appender *ap, uint32_t id, const char *fn, const char *file,
                int line, int col)
{
    size_t fl = fn ? strlen(fn) : 0, il = file ? strlen(file) : 0;
    if (fl > 4096)
        fn = NULL, fl = 0; /* absurd C++ names do not earn a chunk */
    if (il > 4096)
        file = NULL, il = 0;
    uint8_t *p = ft_appender_reserve(ap, FT_CHUNK_SYMBOLS, fl + il + 64);
    if (!p)
        return -1;
    p = ft_put_array(p, 5);
    p = ft_put_uint(p, id);
    p = fn ? ft_put_str(p, fn, (uint32_t)fl) : ft_put_nil(p);
    p = file ? ft_put_str(p, file, (uint32_t)il) : ft_put_nil(p);
    p = ft_put_uint(p, line > 0 ? (uint64_t)line : 0);
    p = ft_put_uint(p, col > 0 ? (uint64_t)col : 0);
    ft_appender_commit(ap, p);
    return 0;
}

/* The source line of a site, while the sources are at hand (the machine
 * that built and ran the program): findings are keyed by it, so the key
 * must not depend on the sources being there when the trace is
 * analyzed.  Only absolute paths: a relative one would be read against
 * whatever directory this runs in. */
/* A [site, text] entry of chunk kind (SOURCE, INSN).  0, -1 no room. */
static int emit_site_text(ft_appender *ap, unsigned kind, uint32_t id,
                          const char *text)
{
    size_t n = strlen(text);
    uint8_t *p = ft_appender_reserve(ap, kind, n + 32);
    if (!p)
        return -1;
    p = ft_put_array(p, 2);
    p = ft_put_uint(p, id);
    p = ft_put_str(p, text, (uint32_t)n);
    ft_appender_commit(ap, p);
    return 0;
}

static int emit_source(ft_appender *ap, ft_source_cache *src, uint32_t id,
                       const char *file, uint32_t line, char *text,
                       size_t len)
{
    text[0] = 0;
    if (!file || file[0] != '/' || !line ||
        !ft_source_line(src, file, line, text, len))
        return 0;
    return emit_site_text(ap, FT_CHUNK_SOURCE, id, text) < 0 ? -1 : 1;
}

/* How far straight-line code runs from the site (recorder/straight.c). */
static int emit_straight(ft_appender *ap, uint32_t id, uint32_t span)
{
    if (!span)
        return 0;
    uint8_t *p = ft_appender_reserve(ap, FT_CHUNK_STRAIGHT, 32);
    if (!p)
        return -1;
    p = ft_put_array(p, 2);
    p = ft_put_uint(p, id);
    p = ft_put_uint(p, span);
    ft_appender_commit(ap, p);
    return 0;
}

/* The instruction at a site without line information (a stripped or
 * -g-less module), so that reports still say what the access is
 * (recorder/straight.c decodes it with capstone). */
static int emit_insn(ft_appender *ap, uint32_t id, ft_straight *code,
                     uint64_t a)
{
    char text[160];
    if (ft_straight_insn(code, a, text, sizeof text) < 0)
        return 0;
    return emit_site_text(ap, FT_CHUNK_INSN, id, text);
}

static int emit_inlined(ft_appender *ap, uint32_t id, const char *file,
                        int line)
{
    size_t fl = strlen(file);
    if (fl > 4096 || line <= 0)
        return 0;
    uint8_t *p = ft_appender_reserve(ap, FT_CHUNK_INLINED, fl + 32);
    if (!p)
        return -1;
    p = ft_put_array(p, 3);
    p = ft_put_uint(p, id);
    p = ft_put_str(p, file, (uint32_t)fl);
    p = ft_put_uint(p, (uint64_t)line);
    ft_appender_commit(ap, p);
    return 0;
}

/* The source file the compiler read for the CU that covers a (its
 * DW_AT_name, made absolute with DW_AT_comp_dir) into srcs->cu, or NULL. */
static const char *cu_file(Dwfl_Module *mod, Dwarf_Addr a, ft_sources *srcs)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = cu_of(mod, a, &bias);
    const char *name = cu ? dwarf_diename(cu) : NULL;
    if (!name)
        return NULL;
    Dwarf_Attribute at;
    const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
    if (name[0] == '/' || !dir)
        snprintf(srcs->cu, sizeof srcs->cu, "%s", name);
    else
        snprintf(srcs->cu, sizeof srcs->cu, "%s/%s", dir, name);
    return srcs->cu;
}

/* The module's data symbols (global and static variables: STT_OBJECT and
 * STT_TLS are left out, a TLS offset is not an address) as DATA entries,
 * offsets relative to the load base like sites.  .symtab when the binary
 * has one, else .dynsym.  The count of entries appended. */
static int emit_data(ft_appender *ap, const module_dw *m, uint32_t index,
                     const ft_module *tm)
{
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(m->mod, &bias);
    Elf_Scn *scn = NULL, *best = NULL;
    GElf_Shdr sh, best_sh = {0};
    while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !best)) {
            best = scn;
            best_sh = sh;
        }
    }
    if (!best || !best_sh.sh_entsize)
        return 0;
    Elf_Data *d = elf_getdata(best, NULL);
    size_t n = best_sh.sh_size / best_sh.sh_entsize;
    int count = 0;
    uint64_t base = m->is_exec ? tm->base : 0;
    for (size_t i = 0; d && i < n; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(d, (int)i, &sym) ||
            GELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_size == 0 ||
            sym.st_shndx == SHN_UNDEF || sym.st_value < base)
            continue;
        char dbuf[1024];
        const char *name = demangled(
            elf_strptr(elf, best_sh.sh_link, sym.st_name), dbuf, sizeof dbuf);
        size_t nl = name ? strlen(name) : 0;
        if (!nl || nl > 1024)
            continue;
        uint8_t *p = ft_appender_reserve(ap, FT_CHUNK_DATA, nl + 40);
        if (!p)
            return -1;
        p = ft_put_array(p, 4);
        p = ft_put_uint(p, index);
        p = ft_put_uint(p, sym.st_value - base);
        p = ft_put_uint(p, sym.st_size);
        p = ft_put_str(p, name, (uint32_t)nl);
        ft_appender_commit(ap, p);
        count++;
    }
    return count;
}

int ft_symbolize(const char *path, FILE *warn, ft_error *err)
{
    return ft_symbolize_with(path, 0, warn, err);
}

int ft_symbolize_with(const char *path, unsigned flags, FILE *warn,
                      ft_error *err)
{
    ft_reader *r = ft_reader_open(path, err);
    if (!r)
        return -1;
    int rc = ft_symbolize_reader(r, path, flags, NULL, 0, warn, err);
    ft_reader_close(r);
    return rc;
}

int ft_symbolize_reader(ft_reader *r, const char *path, unsigned flags,
                        const ft_end *end, uint64_t threads, FILE *warn,
                        ft_error *err)
{
    module_dw *mods = calloc(r->nmodules + 1, sizeof *mods);
    signed char *opened = calloc(r->nmodules + 1, 1);
    ft_source_cache *src = ft_source_cache_new();
    ft_appender ap = {.fd = -1};
    ft_sources *srcs = calloc(1, sizeof *srcs); /* #line directives seen */
    /* TYPES once: a trace symbolised again already has them */
    ft_dwtypes *types = r->ndata || r->types.ntypes ? NULL
                                                     : ft_dwtypes_new(&ap);
    char text[4097];
    int done = 0, rc = 0;
    if ((rc = ft_appender_open_reader(&ap, r, path, err)) < 0)
        goto out;
    if (!mods || !opened || !src) {
        rc = -1;
        if (err) {
            snprintf(err->path, sizeof err->path, "%s", path);
            err->offset = 0;
            snprintf(err->message, sizeof err->message, "out of memory");
        }
        goto out;
    }
    for (uint32_t i = 0; i < r->nsites; i++) {
        const ft_site *s = &r->sites[i];
        /* With debuginfo, sites that got only a function name from a
         * module's symbol table are looked at again for a line. */
        int retry = (flags & FT_SYM_DEBUGINFO) && s->function && !s->file;
        if ((s->function || s->file) && !retry) {
            /* symbolised before sources were recorded */
            if (!s->text)
                emit_source(&ap, src, s->id, s->file, s->line, text,
                             sizeof text);
            continue;
        }
        if (s->module >= r->nmodules)
            continue;
        module_dw *m = &mods[s->module];
        if (!opened[s->module]) {
            open_module(m, &r->modules[s->module], flags, warn);
            opened[s->module] = 1;
        }
        if (!m->usable || s->offset == 0)
            continue;
        Dwarf_Addr a = (m->is_exec ? r->modules[s->module].base : 0) +
                       s->offset - 1 + m->bias;
        char dbuf[4096];
        const char *fn = demangled(dwfl_module_addrname(m->mod, a), dbuf,
                                   sizeof dbuf);
        int line = 0, col = 0;
        const char *file = find_line(m->mod, a, &line, &col);
        if (!file && !s->insn)
            emit_insn(&ap, s->id, m->code, a - m->bias + 1);
        if ((!fn && !file) || (retry && !file))
            continue;
        char real[4096];
        int file_is_system = !file || ft_path_is_system(file);
        if (srcs && file && !ft_path_is_system(file))
            file = ft_real_source(cu_file(m->mod, a, srcs), file, &line,
                                  real, sizeof real, srcs);
        if (emit(&ap, s->id, fn, file, line, col) < 0)
            continue;
        emit_source(&ap, src, s->id, file, line > 0 ? (uint32_t)line : 0,
                    text, sizeof text);
        if (types) /* a system header's line is not the program's */
            ft_dwtypes_site(types, m->mod, a, s->id,
                            file_is_system ? "" : text);
        emit_straight(&ap, s->id,
                      ft_straight_span(m->code, a - m->bias + 1));
        int uline = 0;
        const char *ufile = file && ft_path_is_system(file)
                                ? inlined_into(m->mod, a, &uline)
                                : NULL;
        if (ufile) {
            if (srcs)
                ufile = ft_real_source(cu_file(m->mod, a, srcs), ufile,
                                       &uline, real, sizeof real, srcs);
            emit_inlined(&ap, s->id, ufile, uline);
        }
        done++;
    }
    /* Data symbols of the modules that hold sites (the instrumented
     * ones), once: a trace symbolised again already has them. */
    for (uint32_t m = 0; !r->ndata && m < r->nmodules; m++)
        if (opened[m] && mods[m].usable &&
            emit_data(&ap, &mods[m], m, &r->modules[m]) < 0)
            break;
    /* and the types of their globals */
    for (uint32_t m = 0; types && m < r->nmodules; m++)
        if (opened[m] && mods[m].usable)
            ft_dwtypes_module(types, m, mods[m].mod,
                              mods[m].is_exec ? r->modules[m].base : 0);
    if (types)
        ft_dwtypes_emit_globals(types);
out:
    if (ap.fd >= 0) { /* END even when symbols failed: the run is over */
        if (end)
            ft_appender_put_end(&ap, end, threads);
        int crc = ft_appender_close(&ap, path, rc < 0 ? NULL : err);
        if (crc < 0)
            rc = crc; /* -2: a write failed */
    }
    if (srcs)
        ft_sources_free(srcs);
    free(srcs);
    ft_dwtypes_free(types);
    for (uint32_t i = 0; mods && opened && i < r->nmodules; i++)
        if (mods[i].dwfl) {
            ft_straight_close(mods[i].code);
            dwfl_end(mods[i].dwfl);
        }
    free(mods);
    free(opened);
    ft_source_cache_free(src);
    return rc < 0 ? rc : done;
}
