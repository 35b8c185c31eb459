/* SPDX-License-Identifier: MIT */
/* test_symbolize.c - symbolisation with libdw on a real binary (this test
 * itself, built with -g): a site taken from a real return address comes
 * back as the calling function, this file and the line of the call
 * (number and text);
 * modules that are missing or have another build id are skipped with a
 * warning; chunks are only ever appended; END appending (last wins); a
 * copy stripped of its DWARF gets a line only when separate debuginfo is
 * asked for (FT_SYM_DEBUGINFO, `foretell symbolize --debuginfo`). */
#define _GNU_SOURCE
#include "fixture.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int call_line;

static __attribute__((noinline)) void *return_address(void)
{
    return __builtin_return_address(0);
}

static __attribute__((noinline)) void *probe_site(void)
{
    call_line = __LINE__ + 1;
    void *ra = return_address();
    return ra;
}

typedef struct self_info {
    uint64_t base;
    char build_id[128];
} self_info;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    self_info *s = data;
    s->base = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const uint8_t *name = p + sizeof *nh;
            const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                !memcmp(name, "GNU", 4)) {
                for (unsigned k = 0; k < nh->n_descsz && k < 60; k++)
                    sprintf(s->build_id + 2 * k, "%02x", desc[k]);
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return 1; /* the first entry is the executable */
}

static void write_trace(const char *path, const char *exe, const self_info *s,
                        uint64_t offset)
{
    ft_module mods[3] = {{exe, s->base, 0, s->build_id},
                         {"/nonexistent/libgone.so", 0x7f0000000000, 0, ""},
                         {exe, s->base, 0, "0123456789abcdef"}};
    ft_header h = {.program = exe, .nmodules = 3, .modules = mods};
    ft_error err;
    ft_writer *w = ft_writer_open(path, &h, &err);
    assert_non_null(w);
    ft_site sites[3] = {{.id = 1, .module = 0, .offset = offset},
                        {.id = 2, .module = 1, .offset = 0x1234},
                        {.id = 3, .module = 2, .offset = offset}};
    for (int i = 0; i < 3; i++)
        assert_int_equal(ft_writer_site(w, &sites[i]), 0);
    ft_event ev = {.kind = FT_EV_YIELD, .site = 1};
    assert_int_equal(ft_writer_event(w, &ev), 0);
    assert_int_equal(ft_writer_close(w, NULL), 0);
}

static void test_symbolize_own_binary(void **state)
{
    (void)state;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(n > 0);
    exe[n] = 0;
    self_info s = {0};
    dl_iterate_phdr(find_self, &s);
    uint64_t offset = (uint64_t)(uintptr_t)probe_site() - s.base;

    char path[256];
    fx_temp_path(path, sizeof path, "sym");
    write_trace(path, exe, &s, offset);
    size_t before_len;
    uint8_t *before = fx_read_file(path, &before_len);

    char warnings[4096] = "";
    FILE *warn = fmemopen(warnings, sizeof warnings, "w");
    ft_error err;
    assert_int_equal(ft_symbolize(path, warn, &err), 1);
    fclose(warn);
    assert_non_null(strstr(warnings, "cannot read module "
                                     "/nonexistent/libgone.so"));
    assert_non_null(strstr(warnings, "but the trace recorded "
                                     "0123456789abcdef"));

    size_t after_len;
    uint8_t *after = fx_read_file(path, &after_len);
    assert_true(after_len > before_len);
    assert_memory_equal(before, after, before_len); /* only appended */

    ft_reader *r = ft_reader_open(path, &err);
    assert_non_null(r);
    const ft_site *site = ft_reader_site(r, 1);
    assert_non_null(site->function);
    assert_string_equal(site->function, "probe_site");
    assert_non_null(site->file);
    const char *base = strrchr(site->file, '/');
    assert_string_equal(base ? base + 1 : site->file, "test_symbolize.c");
    assert_int_equal(site->line, call_line);
    /* and the line itself (SOURCE), read while the source is here */
    assert_non_null(site->text);
    assert_string_equal(site->text, "    void *ra = return_address();");
    assert_null(ft_reader_site(r, 2)->function);
    assert_null(ft_reader_site(r, 2)->text);
    assert_null(ft_reader_site(r, 3)->function);
    char buf[512], want[64];
    snprintf(want, sizeof want, "test_symbolize.c:%d", call_line);
    assert_non_null(strstr(ft_site_format(r, 1, buf, sizeof buf), want));
    ft_reader_close(r);

    /* again: nothing left that can be resolved, nothing appended */
    assert_int_equal(ft_symbolize(path, NULL, &err), 0);
    size_t again_len;
    free(fx_read_file(path, &again_len));
    assert_int_equal(again_len, after_len);
    free(before);
    free(after);
    unlink(path);
}

/* The line of site 1 in path's trace, after symbolising with flags. */
static const ft_site *site_after(const char *path, unsigned flags,
                                 ft_reader **r)
{
    ft_error err;
    assert_true(ft_symbolize_with(path, flags, NULL, &err) >= 0);
    *r = ft_reader_open(path, &err);
    assert_non_null(*r);
    return ft_reader_site(*r, 1);
}

static void test_separate_debuginfo(void **state)
{
    (void)state;
    char exe[1024], dir[256], cmd[4096], stripped[512], path[256];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(n > 0);
    exe[n] = 0;
    fx_temp_path(dir, sizeof dir, "dbg");
    snprintf(stripped, sizeof stripped, "%s/copy", dir);
    snprintf(cmd, sizeof cmd,
             "rm -f %s && mkdir %s && "
             "objcopy --only-keep-debug %s %s/copy.debug && "
             "objcopy --strip-debug --add-gnu-debuglink=%s/copy.debug %s %s",
             dir, dir, exe, dir, dir, exe, stripped);
    if (system(cmd) != 0)
        skip(); /* no binutils */
    self_info s = {0};
    dl_iterate_phdr(find_self, &s);
    uint64_t offset = (uint64_t)(uintptr_t)probe_site() - s.base;
    fx_temp_path(path, sizeof path, "dbgtrace");

    ft_reader *r;
    write_trace(path, stripped, &s, offset);
    const ft_site *site = site_after(path, 0, &r);
    assert_non_null(site->function); /* the symbol table survives */
    assert_string_equal(site->function, "probe_site");
    assert_null(site->file);
    ft_reader_close(r);

    /* --debuginfo on the same trace fills in the line */
    site = site_after(path, FT_SYM_DEBUGINFO, &r);
    assert_non_null(site->file);
    assert_int_equal(site->line, call_line);
    ft_reader_close(r);
    size_t len, again;
    free(fx_read_file(path, &len));
    site_after(path, FT_SYM_DEBUGINFO, &r); /* nothing left to add */
    ft_reader_close(r);
    free(fx_read_file(path, &again));
    assert_int_equal(again, len);
    unlink(path);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_append_end_last_wins(void **state)
{
    (void)state;
    char path[256];
    fx_temp_path(path, sizeof path, "end");
    ft_event ev = {.kind = FT_EV_YIELD, .site = 1};
    assert_int_equal(fx_write_trace(path, &ev, 1, 1, "exit"), 0);
    ft_end end = {.present = 1, .events = 1, .exit_status = 0x8b00,
                  .reason = "signal"};
    ft_error err;
    assert_int_equal(ft_trace_append_end(path, &end, 1, &err), 0);
    ft_reader *r = ft_reader_open(path, &err);
    assert_non_null(r);
    assert_string_equal(ft_reader_end(r)->reason, "signal");
    assert_int_equal(ft_reader_end(r)->exit_status, 0x8b00);
    assert_int_equal(ft_reader_damage(r, NULL), 0);
    ft_reader_close(r);

    /* a damaged tail: refuse to append after it */
    FILE *f = fopen(path, "ab");
    fputs("garbage", f);
    fclose(f);
    assert_int_equal(ft_trace_append_end(path, &end, 1, &err), -1);
    assert_non_null(strstr(err.message, "damaged tail"));
    assert_int_equal(ft_symbolize(path, NULL, &err), -1);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symbolize_own_binary),
        cmocka_unit_test(test_separate_debuginfo),
        cmocka_unit_test(test_append_end_last_wins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
