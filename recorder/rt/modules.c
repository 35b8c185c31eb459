/* SPDX-License-Identifier: MIT */
/* modules.c - the module table (executable and shared objects, with load
 * base, size and GNU build id) and the HEADER chunk that carries it.  A PC
 * outside every known module triggers a re-scan (dlopen), whose new
 * modules go out as a MODULES chunk before the SITES chunk naming them. */
#define _GNU_SOURCE
#include "rt.h"
#include "rt_trace.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_MODULES 512

struct module {
    char path[256];
    uintptr_t base, lo, hi; /* hi: end of the last PT_LOAD */
    char build_id[41];
};

static struct module mods[MAX_MODULES];
static int nmods, nmods_written;

static void hex_build_id(struct dl_phdr_info *info, char *out)
{
    out[0] = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const uint8_t *name = p + sizeof(*nh);
            const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (desc + nh->n_descsz > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0) {
                static const char hex[] = "0123456789abcdef";
                uint32_t n = nh->n_descsz > 20 ? 20 : nh->n_descsz;
                for (uint32_t k = 0; k < n; k++) {
                    out[2 * k] = hex[desc[k] >> 4];
                    out[2 * k + 1] = hex[desc[k] & 15];
                }
                out[2 * n] = 0;
                return;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        if (ph->p_vaddr < lo)
            lo = ph->p_vaddr;
        if (ph->p_vaddr + ph->p_memsz > hi)
            hi = ph->p_vaddr + ph->p_memsz;
    }
    if (hi == 0)
        return 0;
    for (int i = 0; i < nmods; i++)
        if (mods[i].base == info->dlpi_addr && mods[i].lo == info->dlpi_addr + lo)
            return 0;
    if (nmods == MAX_MODULES)
        return 1;
    struct module *m = &mods[nmods];
    const char *name = info->dlpi_name;
    if (!name || !name[0]) {
        if (nmods == 0) {
            ssize_t n = readlink("/proc/self/exe", m->path, sizeof m->path - 1);
            m->path[n > 0 ? n : 0] = 0;
        } else {
            m->path[0] = 0;
        }
    } else {
        size_t n = strlen(name);
        if (n >= sizeof m->path)
            n = sizeof m->path - 1;
        __real_memcpy(m->path, name, n);
        m->path[n] = 0;
    }
    m->base = info->dlpi_addr;
    m->lo = info->dlpi_addr + lo;
    m->hi = info->dlpi_addr + hi;
    hex_build_id(info, m->build_id);
    nmods++;
    return 0;
}

void ft_modules_scan(void)
{
    dl_iterate_phdr(scan_one, NULL);
}

int ft_module_find(uintptr_t pc)
{
    for (int i = 0; i < nmods; i++)
        if (pc >= mods[i].lo && pc < mods[i].hi)
            return i;
    return -1;
}

/* Module index of pc, re-scanning once for code loaded since. */
int ft_module_lookup(uintptr_t pc, uintptr_t *off)
{
    int m = ft_module_find(pc);
    if (m < 0) {
        ft_modules_scan();
        m = ft_module_find(pc);
        ft_modules_write_new();
    }
    *off = m >= 0 ? pc - mods[m].base : pc;
    return m >= 0 ? m : nmods;
}

uintptr_t ft_module_base(int m)
{
    return mods[m].base;
}

int ft_module_of(uintptr_t pc, const char **path, uintptr_t *off)
{
    int m = ft_module_find(pc);
    if (m < 0)
        return -1;
    const char *slash = strrchr(mods[m].path, '/');
    *path = slash ? slash + 1 : mods[m].path;
    *off = pc - mods[m].base;
    return m;
}

static uint8_t *put_cstr(uint8_t *p, const char *s)
{
    return ft_put_str(p, s, (uint32_t)strlen(s));
}

static uint8_t *put_module(uint8_t *p, const struct module *m)
{
    p = ft_put_array(p, 4);
    p = put_cstr(p, m->path);
    p = ft_put_uint(p, m->base);
    p = ft_put_uint(p, m->hi - m->base);
    return put_cstr(p, m->build_id);
}

/* Modules found since the header or the previous MODULES chunk. */
void ft_modules_write_new(void)
{
    static uint8_t buf[FT_CHUNK_HEAD + 64 * 400 + FT_CHUNK_TAIL];
    while (nmods_written < nmods) {
        ft_chunk c;
        ft_chunk_open(&c, buf, sizeof buf);
        for (int k = 0; k < 64 && nmods_written < nmods; k++)
            c.pos = put_module(c.pos, &mods[nmods_written++]);
        ft_tb_write_chunk(&c, FT_CHUNK_MODULES);
    }
}

static uint8_t *put_argv(uint8_t *p, uint8_t *limit)
{
    static char cmd[32768];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n = 0;
    if (fd >= 0) {
        ssize_t r;
        while (n < (ssize_t)sizeof cmd - 1 &&
               (r = read(fd, cmd + n, sizeof cmd - 1 - (size_t)n)) > 0)
            n += r;
        close(fd);
    }
    uint32_t argc = 0;
    for (ssize_t i = 0; i < n; i++)
        argc += cmd[i] == 0;
    p = ft_put_array(p, argc);
    for (ssize_t i = 0; i < n && p < limit;) {
        size_t len = strlen(cmd + i);
        p = ft_put_str(p, cmd + i, (uint32_t)len);
        i += (ssize_t)len + 1;
    }
    return p;
}

void ft_header_write(int64_t start_ns)
{
    static uint8_t buf[FT_CHUNK_HEAD + 65536 + MAX_MODULES * 400 + 64];
    ft_chunk c;
    ft_chunk_open(&c, buf, sizeof buf);
    uint8_t *p = ft_put_map(c.pos, 8);
    p = put_cstr(p, "format");
    p = put_cstr(p, FT_FORMAT_NAME);
    p = put_cstr(p, "version");
    p = ft_put_uint(p, ft_rt.zstd_level ? FT_FORMAT_VERSION
                                        : FT_FORMAT_VERSION_PLAIN);
    p = put_cstr(p, "program");
    p = put_cstr(p, nmods ? mods[0].path : "");
    p = put_cstr(p, "argv");
    p = put_argv(p, c.limit - MAX_MODULES * 400);
    p = put_cstr(p, "pid");
    p = ft_put_uint(p, (uint64_t)getpid());
    p = put_cstr(p, "start_time_ns");
    p = ft_put_uint(p, (uint64_t)start_ns);
    p = put_cstr(p, "modules");
    p = ft_put_array(p, (uint32_t)nmods);
    for (int i = 0; i < nmods; i++)
        p = put_module(p, &mods[i]);
    nmods_written = nmods;
    p = put_cstr(p, "options");
    p = ft_put_map(p, 3);
    p = put_cstr(p, "quantum");
    p = ft_put_uint(p, (uint64_t)ft_rt.quantum);
    p = put_cstr(p, "seed");
    p = ft_put_uint(p, ft_rt.seed);
    p = put_cstr(p, "watchdog_ms");
    p = ft_put_uint(p, (uint64_t)ft_rt.watchdog_ms);
    c.pos = p;
    ft_tb_write_chunk(&c, FT_CHUNK_HEADER);
}
