/* SPDX-License-Identifier: MIT */
/* dwtypes.c - writing the TYPES chunk from DWARF after the run: the type
 * of each global or static variable of the modules that hold sites
 * (typedefs and qualifiers peeled; structs, unions, arrays, base types,
 * pointers, enums) and, per site, the heap dereferences `base->field` of
 * its source line whose base has a pointer-to-struct type in scope there.
 * Readers name memory and print values with them (recorder/typetab.c).
 *
 * Every global, not only those the run touched: finding those takes a
 * pass over the events, which cost 230-500 ms on an access-dense run
 * whose whole record took 100 ms, while describing a program's globals
 * costs well under a millisecond.
 *
 * Bounded whatever the DWARF says: at most FT_DW_MAX_GLOBALS variables
 * and FT_DW_MAX_TYPES types per trace, FT_DW_MAX_MEMBERS members per
 * aggregate, nesting of
 * FT_DW_MAX_DEPTH; a reference cycle ends at a type already given an id
 * (readers bound their walks too).  Pointers are recorded without their
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

static const char *str_attr(Dwarf_Die *d, int name)
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
static int type_of(Dwarf_Die *d, Dwarf_Die *out)
{
    Dwarf_Attribute at;
    return dwarf_attr_integrate(d, DW_AT_type, &at) &&
                   dwarf_formref_die(&at, out)
               ? 0
               : -1;
}

/* Through typedefs and qualifiers, a bounded number of them. */
static int peel(Dwarf_Die *d, Dwarf_Die *out)
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
            if (type_of(out, &next) < 0)
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

static uint32_t type_id(ft_dwtypes *t, Dwarf_Die *d, int depth);

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
    uint32_t elem = type_of(d, &et) == 0 ? type_id(t, &et, depth + 1) : 0;
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
    struct { const char *name; uint64_t off; uint32_t type; } m[FT_DW_MAX_MEMBERS];
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
                                   ? str_attr(&child, DW_AT_name)
                                   : NULL;
            if (!name || strlen(name) > FT_DW_MAX_NAME)
                name = "";
            Dwarf_Die mt;
            uint32_t type = 0;
            if (!dwarf_hasattr(&child, DW_AT_bit_size) &&
                type_of(&child, &mt) == 0)
                type = type_id(t, &mt, depth + 1);
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
    put_name(&p, str_attr(d, DW_AT_name));
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
    if (type_of(d, &under) == 0 && peel(&under, &under) == 0 &&
        udata_attr(&under, DW_AT_encoding, &enc) == 0)
        is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
    if (dwarf_child(d, &child) == 0)
        do {
            Dwarf_Attribute at;
            Dwarf_Sword v;
            const char *name = str_attr(&child, DW_AT_name);
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
    put_name(&p, str_attr(d, DW_AT_name));
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
    const char *name = str_attr(d, DW_AT_name);
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
static uint32_t type_id(ft_dwtypes *t, Dwarf_Die *d, int depth)
{
    Dwarf_Die ty;
    if (depth > FT_DW_MAX_DEPTH || t->failed || peel(d, &ty) < 0)
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
        type_of(v, &ty) < 0 || t->ng >= FT_DW_MAX_GLOBALS)
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
    const char *producer = str_attr(cu, DW_AT_producer);
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
            !dwarf_offdie(g->dbg, g->die, &v) || type_of(&v, &ty) < 0)
            continue;
        uint32_t id = type_id(t, &ty, 0);
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

/* ---- heap dereferences of a site's source line ---- */

static int ident_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

/* The variable or parameter called name in scope at the site: the
 * innermost of the scopes (blocks, inlined and outer functions, the
 * CU), its type in *out. */
static int var_type(Dwarf_Die *scopes, int n, const char *name,
                    Dwarf_Die *out)
{
    for (int i = 0; i < n; i++) {
        Dwarf_Die c;
        if (dwarf_child(&scopes[i], &c) != 0)
            continue;
        do {
            int tag = dwarf_tag(&c);
            const char *nm;
            if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) &&
                (nm = str_attr(&c, DW_AT_name)) && !strcmp(nm, name))
                return type_of(&c, out);
        } while (dwarf_siblingof(&c, &c) == 0);
    }
    return -1;
}

/* The member called name of aggregate type d, its type in *out. */
static int member_type(Dwarf_Die *d, const char *name, Dwarf_Die *out)
{
    Dwarf_Die ty, c;
    if (peel(d, &ty) < 0)
        return -1;
    int tag = dwarf_tag(&ty);
    if ((tag != DW_TAG_structure_type && tag != DW_TAG_class_type &&
         tag != DW_TAG_union_type) ||
        dwarf_child(&ty, &c) != 0)
        return -1;
    do {
        const char *nm;
        if (dwarf_tag(&c) == DW_TAG_member &&
            (nm = str_attr(&c, DW_AT_name)) && !strcmp(nm, name))
            return type_of(&c, out);
    } while (dwarf_siblingof(&c, &c) == 0);
    return -1;
}

/* What pointer or one-dimensional array type d points to or holds. */
static int target_type(Dwarf_Die *d, Dwarf_Die *out)
{
    Dwarf_Die ty;
    if (peel(d, &ty) < 0)
        return -1;
    int tag = dwarf_tag(&ty);
    if (tag != DW_TAG_pointer_type && tag != DW_TAG_array_type)
        return -1;
    return type_of(&ty, out);
}

/* The type of the expression text[0..n) (spaces removed already): an
 * identifier followed by ".m", "->m" and "[...]" steps. */
static int chain_type(Dwarf_Die *scopes, int nscopes, const char *text,
                      size_t n, Dwarf_Die *out)
{
    char id[FT_DW_MAX_NAME + 1];
    size_t i = 0, k = 0;
    while (i < n && ident_char(text[i]) && k < FT_DW_MAX_NAME)
        id[k++] = text[i++];
    id[k] = 0;
    if (!k || (id[0] >= '0' && id[0] <= '9') ||
        var_type(scopes, nscopes, id, out) < 0)
        return -1;
    while (i < n) {
        Dwarf_Die next;
        if (text[i] == '[') {
            int level = 0;
            for (; i < n; i++) {
                level += text[i] == '[' ? 1 : text[i] == ']' ? -1 : 0;
                if (!level)
                    break;
            }
            if (i++ >= n || target_type(out, &next) < 0)
                return -1;
            *out = next;
            continue;
        }
        int arrow = text[i] == '-' && i + 1 < n && text[i + 1] == '>';
        if (!arrow && text[i] != '.')
            return -1;
        i += arrow ? 2 : 1;
        for (k = 0; i < n && ident_char(text[i]) && k < FT_DW_MAX_NAME;)
            id[k++] = text[i++];
        id[k] = 0;
        if (!k)
            return -1;
        if (arrow) {
            if (target_type(out, &next) < 0)
                return -1;
            *out = next;
        }
        if (member_type(out, id, &next) < 0)
            return -1;
        *out = next;
    }
    return 0;
}

/* Where the postfix expression that ends just before text[end] starts:
 * identifiers joined by ".", "->" and "[...]". */
static size_t chain_start(const char *text, size_t end)
{
    size_t i = end;
    for (;;) {
        while (i > 0 && text[i - 1] == ' ')
            i--;
        if (i > 0 && text[i - 1] == ']') {
            int level = 0;
            while (i > 0) {
                level += text[i - 1] == ']' ? 1 : text[i - 1] == '[' ? -1 : 0;
                i--;
                if (!level)
                    break;
            }
            if (level)
                return end;
            continue;
        }
        size_t j = i;
        while (i > 0 && ident_char(text[i - 1]))
            i--;
        if (i == j)
            return end;
        size_t k = i;
        while (k > 0 && text[k - 1] == ' ')
            k--;
        if (k > 0 && text[k - 1] == '.')
            i = k - 1;
        else if (k > 1 && text[k - 1] == '>' && text[k - 2] == '-')
            i = k - 2;
        else
            return i;
    }
}

static int emit_deref(ft_dwtypes *t, uint32_t site, const char *base,
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

/* Notes the CU holding a (a program's CU: programs_cu). */
static void note_cu(ft_dwtypes *t, Dwarf_Die *cu)
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

int ft_dwtypes_site(ft_dwtypes *t, Dwfl_Module *mod, Dwarf_Addr a,
                    uint32_t site, const char *text)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, a, &bias), *scopes = NULL;
    if (cu)
        note_cu(t, cu);
    if (!cu || !strstr(text, "->") || t->failed)
        return 0;
    /* the code of the line: comments and string literals blanked */
    char code[1024];
    size_t n = 0;
    char quote = 0;
    for (size_t i = 0; text[i] && n + 1 < sizeof code; i++) {
        char c = text[i];
        if (quote) {
            if (c == '\\' && text[i + 1])
                i++;
            else if (c == quote)
                quote = 0;
            c = ' ';
        } else if (c == '"' || c == '\'') {
            quote = c;
            c = ' ';
        } else if (c == '/' && text[i + 1] == '/') {
            break;
        } else if (c == '/' && text[i + 1] == '*') {
            const char *e = strstr(text + i + 2, "*/");
            if (!e)
                break;
            i = (size_t)(e - text) + 1;
            c = ' ';
        } else if (c == '\t') {
            c = ' ';
        }
        code[n++] = c;
    }
    code[n] = 0;
    int nscopes = dwarf_getscopes(cu, a - bias, &scopes);
    int count = 0;
    for (const char *arrow = strstr(code, "->"); arrow && nscopes > 0;
         arrow = strstr(arrow + 2, "->")) {
        size_t at = (size_t)(arrow - code), s = chain_start(code, at);
        char field[FT_DW_MAX_NAME + 1], base[256];
        size_t k = 0, f = at + 2, b = 0;
        while (code[f] == ' ')
            f++;
        while (ident_char(code[f]) && k < FT_DW_MAX_NAME)
            field[k++] = code[f++];
        field[k] = 0;
        for (size_t i = s; i < at && b + 1 < sizeof base; i++)
            if (code[i] != ' ')
                base[b++] = code[i];
        base[b] = 0;
        Dwarf_Die bt, pt, st;
        if (!k || !b || chain_type(scopes, nscopes, base, b, &bt) < 0 ||
            target_type(&bt, &pt) < 0 || peel(&pt, &st) < 0 ||
            (dwarf_tag(&st) != DW_TAG_structure_type &&
             dwarf_tag(&st) != DW_TAG_class_type &&
             dwarf_tag(&st) != DW_TAG_union_type))
            continue;
        uint32_t id = type_id(t, &st, 0);
        if (!id)
            continue;
        if (emit_deref(t, site, base, field, id) < 0) {
            free(scopes);
            return -1;
        }
        count++;
    }
    free(scopes);
    return count;
}
