/* SPDX-License-Identifier: MIT */
/* dwderef.c - the heap dereferences of a site's source line for the
 * TYPES chunk: each `base->field` of the line whose base (an identifier,
 * then ".m", "->m" and "[...]" steps; or a cast "((struct pool *)arg)")
 * DWARF types, from the variables in scope at the site and their
 * members, as a pointer to a struct or union; and in a C++ member
 * function the members of *this the line names bare (`balance_`).  Readers name a heap access
 * at that site by it when the member at the access's offset is `field`
 * (recorder/datasyms.c).  Text is matched, not parsed: a line the
 * patterns do not fit gives nothing, and the reader's offset check keeps
 * a wrong guess from naming anything. */
#include "recorder/dwtypes.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#define FT_DW_MAX_NAME 128u

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
                (nm = ft_dw_str_attr(&c, DW_AT_name)) && !strcmp(nm, name))
                return ft_dw_type_of(&c, out);
        } while (dwarf_siblingof(&c, &c) == 0);
    }
    return -1;
}

/* The member called name of aggregate type d, its type in *out. */
static int member_type(Dwarf_Die *d, const char *name, Dwarf_Die *out)
{
    Dwarf_Die ty, c;
    if (ft_dw_peel(d, &ty) < 0)
        return -1;
    int tag = dwarf_tag(&ty);
    if ((tag != DW_TAG_structure_type && tag != DW_TAG_class_type &&
         tag != DW_TAG_union_type) ||
        dwarf_child(&ty, &c) != 0)
        return -1;
    do {
        const char *nm;
        if (dwarf_tag(&c) == DW_TAG_member &&
            (nm = ft_dw_str_attr(&c, DW_AT_name)) && !strcmp(nm, name))
            return ft_dw_type_of(&c, out);
    } while (dwarf_siblingof(&c, &c) == 0);
    return -1;
}

/* What pointer or one-dimensional array type d points to or holds. */
static int target_type(Dwarf_Die *d, Dwarf_Die *out)
{
    Dwarf_Die ty;
    if (ft_dw_peel(d, &ty) < 0)
        return -1;
    int tag = dwarf_tag(&ty);
    if (tag != DW_TAG_pointer_type && tag != DW_TAG_array_type)
        return -1;
    return ft_dw_type_of(&ty, out);
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

/* The struct or union named by the cast that opens group, "((struct
 * pool *)arg)" or "((pool_t *) arg)": its name looked up among the CU's
 * types (struct tags, or typedefs of one), in *out. */
static int cast_type(Dwarf_Die *cu, const char *g, size_t n, Dwarf_Die *out)
{
    size_t i = 1, k = 0;
    char name[FT_DW_MAX_NAME + 1];
    while (i < n && g[i] == ' ')
        i++;
    if (i >= n || g[i++] != '(')
        return -1;
    int tagged = 0;
    for (;;) { /* words up to the '*' */
        while (i < n && g[i] == ' ')
            i++;
        if (i < n && g[i] == '*')
            break;
        for (k = 0; i < n && ident_char(g[i]) && k < FT_DW_MAX_NAME;)
            name[k++] = g[i++];
        name[k] = 0;
        if (!k)
            return -1;
        if (!strcmp(name, "struct") || !strcmp(name, "union"))
            tagged = 1;
    }
    while (++i < n && g[i] == ' ')
        ;
    if (i >= n || g[i] != ')' || !k)
        return -1;
    Dwarf_Die c;
    if (dwarf_child(cu, &c) != 0)
        return -1;
    do {
        int tag = dwarf_tag(&c);
        const char *nm = ft_dw_str_attr(&c, DW_AT_name);
        if (!nm || strcmp(nm, name) != 0 ||
            dwarf_hasattr(&c, DW_AT_declaration))
            continue;
        if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
            tag == DW_TAG_class_type) {
            *out = c;
            return 0;
        }
        if (!tagged && tag == DW_TAG_typedef && ft_dw_type_of(&c, out) == 0 &&
            ft_dw_peel(out, out) == 0)
            return 0;
    } while (dwarf_siblingof(&c, &c) == 0);
    return -1;
}

/* Where the parenthesised group that ends just before text[end] opens,
 * or end when none does. */
static size_t group_start(const char *text, size_t end)
{
    size_t i = end;
    while (i > 0 && text[i - 1] == ' ')
        i--;
    if (i == 0 || text[i - 1] != ')')
        return end;
    int level = 0;
    while (i > 0) {
        level += text[i - 1] == ')' ? 1 : text[i - 1] == '(' ? -1 : 0;
        i--;
        if (!level)
            return i;
    }
    return end;
}

/* In a C++ member function, the members of *this the line names
 * without `this->` (`balance_ -= amount`): a DEREF entry each with base
 * "this", unless a local variable or parameter of that name hides it. */
static int this_members(ft_dwtypes *t, Dwarf_Die *scopes, int nscopes,
                        const char *code, uint32_t site)
{
    Dwarf_Die tt, ct, cls, mt, vt;
    if (var_type(scopes, nscopes, "this", &tt) < 0 ||
        target_type(&tt, &ct) < 0 || ft_dw_peel(&ct, &cls) < 0 ||
        (dwarf_tag(&cls) != DW_TAG_class_type &&
         dwarf_tag(&cls) != DW_TAG_structure_type))
        return 0;
    int nlocal = nscopes; /* the scopes inside the compile unit */
    while (nlocal > 0 &&
           dwarf_tag(&scopes[nlocal - 1]) == DW_TAG_compile_unit)
        nlocal--;
    char seen[512] = " ";
    int count = 0;
    uint32_t id = 0;
    for (size_t i = 0; code[i];) {
        if (!ident_char(code[i]) || (code[i] >= '0' && code[i] <= '9')) {
            while (ident_char(code[i])) /* a number: skipped whole */
                i++;
            if (code[i])
                i++;
            continue;
        }
        size_t s = i, k = 0;
        char name[FT_DW_MAX_NAME + 3];
        while (ident_char(code[i])) {
            if (k < FT_DW_MAX_NAME)
                name[k++] = code[i];
            i++;
        }
        name[k] = 0;
        size_t j = i, p = s;
        while (code[j] == ' ')
            j++;
        while (p > 0 && code[p - 1] == ' ')
            p--;
        if (code[j] == '(' || code[j] == ':' ||
            (p > 0 && (code[p - 1] == '.' || code[p - 1] == ':' ||
                       code[p - 1] == '>')))
            continue; /* a call, a qualified name, another's member */
        char key[FT_DW_MAX_NAME + 4];
        key[0] = ' ';
        memcpy(key + 1, name, k);
        key[k + 1] = ' ';
        key[k + 2] = 0;
        if (strstr(seen, key) || member_type(&cls, name, &mt) < 0 ||
            var_type(scopes, nlocal, name, &vt) == 0)
            continue;
        if (strlen(seen) + strlen(key) < sizeof seen)
            strcat(seen, key + 1);
        if (!id && !(id = ft_dwtypes_type_id(t, &cls, 0)))
            return count;
        if (ft_dwtypes_emit_deref(t, site, "this", name, id) < 0)
            return -1;
        count++;
    }
    return count;
}

int ft_dwtypes_site(ft_dwtypes *t, Dwfl_Module *mod, Dwarf_Addr a,
                    uint32_t site, const char *text)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, a, &bias), *scopes = NULL;
    if (cu)
        ft_dwtypes_note_cu(t, cu);
    if (!cu || !text[0])
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
    int lang = dwarf_srclang(cu);
    int cxx = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
              lang == DW_LANG_C_plus_plus_11 ||
              lang == DW_LANG_C_plus_plus_14;
    if (!strstr(code, "->") && !cxx)
        return 0; /* nothing to look up: spare the scopes */
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
        Dwarf_Die bt, pt, st;
        int cast = s == at && (s = group_start(code, at)) < at;
        for (size_t i = s; i < at && b + 1 < sizeof base; i++)
            /* spaces dropped; in a cast, one kept between words */
            if (code[i] != ' ' ||
                (cast && b && ident_char(base[b - 1]) &&
                 ident_char(code[i + 1])))
                base[b++] = code[i];
        base[b] = 0;
        if (!k || !b)
            continue;
        if (cast ? cast_type(cu, base, b, &st) < 0
                 : chain_type(scopes, nscopes, base, b, &bt) < 0 ||
                       target_type(&bt, &pt) < 0 ||
                       ft_dw_peel(&pt, &st) < 0)
            continue;
        if (dwarf_tag(&st) != DW_TAG_structure_type &&
            dwarf_tag(&st) != DW_TAG_class_type &&
            dwarf_tag(&st) != DW_TAG_union_type)
            continue;
        uint32_t id = ft_dwtypes_type_id(t, &st, 0);
        if (!id)
            continue;
        if (ft_dwtypes_emit_deref(t, site, base, field, id) < 0) {
            free(scopes);
            return -1;
        }
        count++;
    }
    if (nscopes > 0) {
        int m = this_members(t, scopes, nscopes, code, site);
        count = m < 0 ? -1 : count + m;
    }
    free(scopes);
    return count;
}
