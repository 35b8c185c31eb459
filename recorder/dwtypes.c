/* SPDX-License-Identifier: MIT */
/* dwtypes.c - writing the TYPES chunk from DWARF after the run: the type
 * of each global or static variable of the program's compile units in
 * the modules that hold sites (typedefs and qualifiers peeled; structs,
 * unions, arrays, base types, pointers, enums), and the entries the
 * heap dereferences of the sites' lines need (recorder/dwderef.c finds
 * those).  Readers name memory and print values with them
 * (recorder/typetab.c).
 *
 * Every global, not only those the run touched: finding those takes a
 * pass over the events, which cost 230-500 ms on an access-dense run
 * whose whole record took 100 ms, while describing a program's globals
 * costs well under a millisecond.
 *
 * Bounded whatever the DWARF says: at most FT_DW_MAX_GLOBALS variables
 * and FT_DW_MAX_TYPES types per trace, FT_DW_MAX_MEMBERS members per
 * aggregate, nesting of FT_DW_MAX_DEPTH; a reference cycle ends at a type
 * already given an id (readers bound their walks too).  Pointers are recorded without their
 * target: a global's pointer value prints as an address, and a heap
 * struct comes in through the dereference that names it. */
#include "recorder/dwtypes.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#define FT_DW_MAX_TYPES 8192u
#define FT_DW_MAX_MEMBERS 256u
#define FT_DW_MAX_DEPTH 12
#define FT_DW_MAX_NAME 128u
#define FT_DW_MAX_GLOBALS 4096u

typedef struct dw_global {
    uint32_t module;
    uint64_t offset, size;
    Dwarf_Off die; /* the variable's DIE in its module's Dwarf */
    Dwarf *dbg;
} dw_global;

typedef struct dw_key {
    Dwarf *dbg; /* NULL: empty slot */
    Dwarf_Off off;
    uint32_t id;
} dw_key;

struct ft_dwtypes {
    ft_appender *ap;
    Dwarf_Off *site_cus; /* CUs that hold a site (global DIE offsets) */
    Dwarf **site_dbg;
    size_t ncus;
    dw_global *g;
    size_t ng, capg;
    dw_key *map; /* DIE -> type id, open addressing */
    size_t capmap;
    uint32_t next_id;
    int failed;
};

ft_dwtypes *ft_dwtypes_new(ft_appender *ap)
{
    ft_dwtypes *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ap = ap;
    t->capmap = 2 * FT_DW_MAX_TYPES;
    t->map = calloc(t->capmap, sizeof *t->map);
    if (!t->map) {
        free(t);
        return NULL;
    }
    return t;
}

void ft_dwtypes_free(ft_dwtypes *t)
{
    if (!t)
        return;
    free(t->g);
    free(t->map);
    free(t->site_cus);
    free(t->site_dbg);
    free(t);
}

static dw_key *slot(ft_dwtypes *t, Dwarf *dbg, Dwarf_Off off)
{
    size_t h = (size_t)((off * 0x9e3779b97f4a7c15ull) >> 17) % t->capmap;
    for (size_t i = 0; i < t->capmap; i++) {
        dw_key *k = &t->map[(h + i) % t->capmap];
        if (!k->dbg || (k->dbg == dbg && k->off == off))
            return k;
    }
    return NULL;
}

const char *ft_dw_str_attr(Dwarf_Die *d, int name)
{
    Dwarf_Attribute at;
    return dwarf_formstring(dwarf_attr_integrate(d, name, &at));
}

static int udata_attr(Dwarf_Die *d, int name, Dwarf_Word *v)
{
    Dwarf_Attribute at;
    return dwarf_attr_integrate(d, name, &at) && dwarf_formudata(&at, v) == 0
               ? 0
               : -1;
}

/* The DIE d's DW_AT_type refers to, in *out; -1 none (void). */
int ft_dw_type_of(Dwarf_Die *d, Dwarf_Die *out)
{
    Dwarf_Attribute at;
    return dwarf_attr_integrate(d, DW_AT_type, &at) &&
                   dwarf_formref_die(&at, out)
               ? 0
               : -1;
}

/* Through typedefs and qualifiers, a bounded number of them. */
int ft_dw_peel(Dwarf_Die *d, Dwarf_Die *out)
{
    *out = *d;
    for (int i = 0; i < 16; i++) {
        switch (dwarf_tag(out)) {
        case DW_TAG_typedef:
        case DW_TAG_const_type:
        case DW_TAG_volatile_type:
        case DW_TAG_restrict_type:
        case DW_TAG_atomic_type: {
            Dwarf_Die next;
            if (ft_dw_type_of(out, &next) < 0)
                return -1;
            *out = next;
            break;
        }
        default:
            return 0;
        }
    }
    return -1;
}

static void put_name(uint8_t **p, const char *name)
{
    size_t n = name ? strnlen(name, FT_DW_MAX_NAME + 1) : 0;
    if (!name || n > FT_DW_MAX_NAME)
        *p = ft_put_nil(*p);
    else
        *p = ft_put_str(*p, name, (uint32_t)n);
}

static uint8_t *reserve(ft_dwtypes *t, size_t need)
{
    uint8_t *p = ft_appender_reserve(t->ap, FT_CHUNK_TYPES, need);
    if (!p)
        t->failed = 1;
    return p;
}


static uint32_t new_id(ft_dwtypes *t)
{
    return t->next_id < FT_DW_MAX_TYPES ? ++t->next_id : 0;
}

/* An array type's entries, one per dimension (int a[3][4]: an array of
 * 3 arrays of 4 ints); the outermost gets id. */
static void emit_array(ft_dwtypes *t, Dwarf_Die *d, uint32_t id, int depth)
{
    Dwarf_Die et, child;
    uint64_t count[8];
    int ndim = 0;
    if (dwarf_child(d, &child) == 0)
        do {
            if (dwarf_tag(&child) != DW_TAG_subrange_type &&
                dwarf_tag(&child) != DW_TAG_enumeration_type)
                continue;
            Dwarf_Word c = 0, ub;
            Dwarf_Attribute at;
            Dwarf_Sword sub;
            if (udata_attr(&child, DW_AT_count, &c) < 0 &&
                dwarf_attr(&child, DW_AT_upper_bound, &at) &&
                dwarf_formsdata(&at, &sub) == 0 && sub >= 0 &&
                udata_attr(&child, DW_AT_upper_bound, &ub) == 0)
                c = ub + 1;
            if (ndim < 8)
                count[ndim++] = c;
            else
                return; /* absurd: leave the type undescribed */
        } while (dwarf_siblingof(&child, &child) == 0);
    uint32_t elem = ft_dw_type_of(d, &et) == 0
                        ? ft_dwtypes_type_id(t, &et, depth + 1)
                        : 0;
    if (!ndim)
        count[ndim++] = 0;
    uint64_t esize = 0;
    Dwarf_Word w;
    if (dwarf_aggregate_size(&et, &w) == 0)
        esize = w;
    for (int i = ndim - 1; i >= 0 && elem; i--) {
        uint32_t me = i ? new_id(t) : id;
        if (!me)
            return;
        uint64_t size = count[i] && esize <= UINT64_MAX / count[i]
                            ? esize * count[i]
                            : 0;
        uint8_t *p = reserve(t, 96);
        if (!p)
            return;
        p = ft_put_array(p, 6);
        p = ft_put_uint(p, FT_TYPE_ARRAY);
        p = ft_put_uint(p, me);
        p = ft_put_uint(p, size);
        p = ft_put_nil(p);
        p = ft_put_uint(p, elem);
        p = ft_put_uint(p, count[i]);
        ft_appender_commit(t->ap, p);
        elem = me;
        esize = size;
    }
}

/* A struct, class or union's members: data members with a constant
 * offset (bit-fields with type 0, their bits not being bytes), base
 * classes as anonymous members. */
static void emit_members(ft_dwtypes *t, Dwarf_Die *d, uint32_t id,
                         unsigned kind, uint64_t size, int depth)
{
    struct {
        const char *name;
        uint64_t off;
        uint32_t type;
    } m[FT_DW_MAX_MEMBERS];
    uint32_t n = 0;
    size_t need = 96;
    Dwarf_Die child;
    if (dwarf_child(d, &child) == 0)
        do {
            int tag = dwarf_tag(&child);
            if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
                dwarf_hasattr(&child, DW_AT_declaration))
                continue; /* static members live elsewhere */
            Dwarf_Word off = 0;
            if (udata_attr(&child, DW_AT_data_member_location, &off) < 0 &&
                kind == FT_TYPE_STRUCT)
                continue; /* a location expression: not a plain offset */
            const char *name = tag == DW_TAG_member
                                   ? ft_dw_str_attr(&child, DW_AT_name)
                                   : NULL;
            if (!name || strlen(name) > FT_DW_MAX_NAME)
                name = "";
            Dwarf_Die mt;
            uint32_t type = 0;
            if (!dwarf_hasattr(&child, DW_AT_bit_size) &&
                ft_dw_type_of(&child, &mt) == 0)
                type = ft_dwtypes_type_id(t, &mt, depth + 1);
            if (n == FT_DW_MAX_MEMBERS)
                break;
            m[n].name = name;
            m[n].off = off;
            m[n].type = type;
            need += strlen(name) + 32;
            n++;
        } while (dwarf_siblingof(&child, &child) == 0);
    uint8_t *p = reserve(t, need + FT_DW_MAX_NAME);
    if (!p)
        return;
    p = ft_put_array(p, 5);
    p = ft_put_uint(p, kind);
    p = ft_put_uint(p, id);
    p = ft_put_uint(p, size);
    put_name(&p, ft_dw_str_attr(d, DW_AT_name));
    p = ft_put_array(p, n);
    for (uint32_t i = 0; i < n; i++) {
        p = ft_put_array(p, 3);
        p = ft_put_str(p, m[i].name, (uint32_t)strlen(m[i].name));
        p = ft_put_uint(p, m[i].off);
        p = ft_put_uint(p, m[i].type);
    }
    ft_appender_commit(t->ap, p);
}

static void emit_enum(ft_dwtypes *t, Dwarf_Die *d, uint32_t id,
                      uint64_t size)
{
    struct { const char *name; int64_t v; } e[FT_DW_MAX_MEMBERS];
    uint32_t n = 0;
    size_t need = 96;
    int is_signed = 0;
    Dwarf_Die under, child;
    Dwarf_Word enc;
    if (ft_dw_type_of(d, &under) == 0 && ft_dw_peel(&under, &under) == 0 &&
        udata_attr(&under, DW_AT_encoding, &enc) == 0)
        is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
    if (dwarf_child(d, &child) == 0)
        do {
            Dwarf_Attribute at;
            Dwarf_Sword v;
            const char *name = ft_dw_str_attr(&child, DW_AT_name);
            if (dwarf_tag(&child) != DW_TAG_enumerator || !name ||
                strlen(name) > FT_DW_MAX_NAME ||
                !dwarf_attr(&child, DW_AT_const_value, &at) ||
                dwarf_formsdata(&at, &v) != 0)
                continue;
            if (n == FT_DW_MAX_MEMBERS)
                break;
            e[n].name = name;
            e[n].v = v;
            is_signed |= v < 0;
            need += strlen(name) + 16;
            n++;
        } while (dwarf_siblingof(&child, &child) == 0);
    uint8_t *p = reserve(t, need + FT_DW_MAX_NAME);
    if (!p)
        return;
    p = ft_put_array(p, 6);
    p = ft_put_uint(p, FT_TYPE_ENUM);
    p = ft_put_uint(p, id);
    p = ft_put_uint(p, size);
    put_name(&p, ft_dw_str_attr(d, DW_AT_name));
    p = ft_put_uint(p, (uint64_t)is_signed);
    p = ft_put_array(p, n);
    for (uint32_t i = 0; i < n; i++) {
        p = ft_put_array(p, 2);
        p = ft_put_str(p, e[i].name, (uint32_t)strlen(e[i].name));
        p = ft_put_int(p, e[i].v);
    }
    ft_appender_commit(t->ap, p);
}

/* A scalar: base type (enc) or pointer (enc 0). */
static void emit_scalar(ft_dwtypes *t, Dwarf_Die *d, uint32_t id,
                        unsigned kind, uint64_t size)
{
    uint8_t *p = reserve(t, 64 + FT_DW_MAX_NAME);
    if (!p)
        return;
    p = ft_put_array(p, kind == FT_TYPE_BASE ? 5 : 4);
    p = ft_put_uint(p, kind);
    p = ft_put_uint(p, id);
    p = ft_put_uint(p, size);
    const char *name = ft_dw_str_attr(d, DW_AT_name);
    put_name(&p, name);
    if (kind == FT_TYPE_BASE) {
        Dwarf_Word enc = 0;
        udata_attr(d, DW_AT_encoding, &enc);
        unsigned e = 0;
        switch (enc) {
        case DW_ATE_signed: e = FT_ENC_SIGNED; break;
        case DW_ATE_unsigned:
        case DW_ATE_UTF: e = FT_ENC_UNSIGNED; break;
        case DW_ATE_boolean: e = FT_ENC_BOOL; break;
        case DW_ATE_float: e = FT_ENC_FLOAT; break;
        case DW_ATE_signed_char:
        case DW_ATE_unsigned_char:
            /* plain char prints as a character; int8_t, uint8_t (signed
             * and unsigned char) as numbers */
            e = name && !strcmp(name, "char") ? FT_ENC_CHAR
                : enc == DW_ATE_signed_char   ? FT_ENC_SIGNED
                                              : FT_ENC_UNSIGNED;
            break;
        }
        p = ft_put_uint(p, e);
    }
    ft_appender_commit(t->ap, p);
}

/* The id of DIE d's type (typedefs and qualifiers peeled), its entry
 * appended the first time; 0 unknown. */
uint32_t ft_dwtypes_type_id(ft_dwtypes *t, Dwarf_Die *d, int depth)
{
    Dwarf_Die ty;
    if (depth > FT_DW_MAX_DEPTH || t->failed || ft_dw_peel(d, &ty) < 0)
        return 0;
    Dwarf *dbg = dwarf_cu_getdwarf(ty.cu);
    dw_key *k = slot(t, dbg, dwarf_dieoffset(&ty));
    if (!k)
        return 0;
    if (k->dbg)
        return k->id;
    uint32_t id = new_id(t);
    if (!id)
        return 0;
    k->dbg = dbg;
    k->off = dwarf_dieoffset(&ty);
    k->id = id;
    Dwarf_Word size = 0;
    int tag = dwarf_tag(&ty);
    if (dwarf_aggregate_size(&ty, &size) != 0)
        size = tag == DW_TAG_pointer_type ? sizeof(void *) : 0;
    switch (tag) {
    case DW_TAG_base_type:
        emit_scalar(t, &ty, id, FT_TYPE_BASE, size);
        break;
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
        emit_scalar(t, &ty, id, FT_TYPE_POINTER, size);
        break;
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
        emit_members(t, &ty, id, FT_TYPE_STRUCT, size, depth);
        break;
    case DW_TAG_union_type:
        emit_members(t, &ty, id, FT_TYPE_UNION, size, depth);
        break;
    case DW_TAG_array_type:
        emit_array(t, &ty, id, depth);
        break;
    case DW_TAG_enumeration_type:
        emit_enum(t, &ty, id, size);
        break;
    default:
        k->id = 0; /* functions, pointers to members, ...: undescribed */
        return 0;
    }
    return id;
}

/* ---- globals ---- */

static void add_global(ft_dwtypes *t, uint32_t index, Dwarf_Die *v,
                       uint64_t sub)
{
    Dwarf_Attribute at;
    Dwarf_Op *ops;
    size_t nops;
    Dwarf_Die ty;
    if (!dwarf_attr(v, DW_AT_location, &at) ||
        dwarf_getlocation(&at, &ops, &nops) != 0 || nops != 1 ||
        ops[0].atom != DW_OP_addr || ops[0].number < sub ||
        ft_dw_type_of(v, &ty) < 0 || t->ng >= FT_DW_MAX_GLOBALS)
        return;
    Dwarf_Word size = 1;
    if (dwarf_aggregate_size(&ty, &size) != 0 || size == 0)
        size = 1;
    if (t->ng == t->capg) {
        size_t cap = t->capg ? 2 * t->capg : 256;
        dw_global *g = realloc(t->g, cap * sizeof *g);
        if (!g)
            return;
        t->g = g;
        t->capg = cap;
    }
    t->g[t->ng++] = (dw_global){index, ops[0].number - sub, size,
                                dwarf_dieoffset(v), dwarf_cu_getdwarf(v->cu)};
}

/* Variables at namespace scope and static ones in functions. */
static void walk_scope(ft_dwtypes *t, uint32_t index, Dwarf_Die *d,
                       uint64_t sub, int depth)
{
    Dwarf_Die c;
    if (depth > 8 || dwarf_child(d, &c) != 0)
        return;
    do {
        switch (dwarf_tag(&c)) {
        case DW_TAG_variable:
            add_global(t, index, &c, sub);
            break;
        case DW_TAG_subprogram:
        case DW_TAG_lexical_block:
        case DW_TAG_namespace:
            walk_scope(t, index, &c, sub, depth + 1);
            break;
        }
    } while (dwarf_siblingof(&c, &c) == 0);
}

/* Whether a CU is the program's: compiled by foretell-cc (gcc records
 * -fsanitize=thread in DW_AT_producer), or holding a site.  Not the
 * foretell runtime linked into the program, whose many globals are no
 * business of the program's reports. */
static int programs_cu(const ft_dwtypes *t, Dwarf_Die *cu)
{
    const char *producer = ft_dw_str_attr(cu, DW_AT_producer);
    if (producer && strstr(producer, "-fsanitize=thread"))
        return 1;
    Dwarf *dbg = dwarf_cu_getdwarf(cu->cu);
    for (size_t i = 0; i < t->ncus; i++)
        if (t->site_cus[i] == dwarf_dieoffset(cu) && t->site_dbg[i] == dbg)
            return 1;
    return 0;
}

void ft_dwtypes_module(ft_dwtypes *t, uint32_t index, Dwfl_Module *mod,
                       uint64_t sub)
{
    Dwarf_Die *cu = NULL;
    Dwarf_Addr bias;
    while ((cu = dwfl_module_nextcu(mod, cu, &bias)))
        if (programs_cu(t, cu))
            walk_scope(t, index, cu, sub, 0);
}

static int by_place(const void *a, const void *b)
{
    const dw_global *x = a, *y = b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

int ft_dwtypes_emit_globals(ft_dwtypes *t)
{
    if (!t->ng)
        return 0;
    qsort(t->g, t->ng, sizeof *t->g, by_place);
    int count = 0;
    for (size_t i = 0; i < t->ng && !t->failed; i++) {
        const dw_global *g = &t->g[i];
        Dwarf_Die v, ty;
        if ((i && !by_place(&t->g[i - 1], g)) ||
            !dwarf_offdie(g->dbg, g->die, &v) || ft_dw_type_of(&v, &ty) < 0)
            continue;
        uint32_t id = ft_dwtypes_type_id(t, &ty, 0);
        uint8_t *p = id ? reserve(t, 64) : NULL;
        if (!p)
            continue;
        p = ft_put_array(p, 4);
        p = ft_put_uint(p, FT_TYPE_VAR);
        p = ft_put_uint(p, g->module);
        p = ft_put_uint(p, g->offset);
        p = ft_put_uint(p, id);
        ft_appender_commit(t->ap, p);
        count++;
    }
    return t->failed ? -1 : count;
}

/* ---- what the dereferences of site lines need (recorder/dwderef.c) ---- */

/* Notes the CU holding a (a program's CU: programs_cu). */
void ft_dwtypes_note_cu(ft_dwtypes *t, Dwarf_Die *cu)
{
    Dwarf *dbg = dwarf_cu_getdwarf(cu->cu);
    Dwarf_Off off = dwarf_dieoffset(cu);
    for (size_t i = 0; i < t->ncus; i++)
        if (t->site_cus[i] == off && t->site_dbg[i] == dbg)
            return;
    if (t->ncus >= 4096)
        return;
    Dwarf_Off *o = realloc(t->site_cus, (t->ncus + 1) * sizeof *o);
    if (o)
        t->site_cus = o;
    Dwarf **d = realloc(t->site_dbg, (t->ncus + 1) * sizeof *d);
    if (d)
        t->site_dbg = d;
    if (o && d) {
        t->site_cus[t->ncus] = off;
        t->site_dbg[t->ncus++] = dbg;
    }
}

int ft_dwtypes_emit_deref(ft_dwtypes *t, uint32_t site, const char *base,
                      const char *field, uint32_t type)
{
    size_t bl = strlen(base), fl = strlen(field);
    uint8_t *p = reserve(t, bl + fl + 64);
    if (!p)
        return -1;
    p = ft_put_array(p, 5);
    p = ft_put_uint(p, FT_TYPE_DEREF);
    p = ft_put_uint(p, site);
    p = ft_put_str(p, base, (uint32_t)bl);
    p = ft_put_str(p, field, (uint32_t)fl);
    p = ft_put_uint(p, type);
    ft_appender_commit(t->ap, p);
    return 0;
}

