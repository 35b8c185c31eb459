# SPDX-License-Identifier: MIT
# bash completion for foretell (installed as
# share/bash-completion/completions/foretell).  Commands and options are
# read from foretell's own --help (`foretell --help`, `foretell CMD
# --help`, `foretell batch SUB --help`), so they never fall behind the
# program; after `--` the program and its arguments complete as commands
# and files do.
_foretell_words() { # _foretell_words SECTION ARGS...: names listed in --help
    local sect=$1
    shift
    "$@" --help 2>/dev/null | awk -v sect="$sect" '
        /^[a-z]+:$/ { in_s = ($0 == sect ":"); next }
        in_s && /^  [^ ]/ {
            if (sect == "commands") { print $1; next }
            for (i = 1; i <= NF; i++) {
                w = $i; sub(/,$/, "", w)
                if (w ~ /^-/) print w; else break
            }
        }'
}

_foretell() {
    local cur prev cmd sub i
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    local exe=${COMP_WORDS[0]}
    # after --: the program under test and its own arguments
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == -- ]]; then
            if ((COMP_CWORD == i + 1)); then
                COMPREPLY=($(compgen -c -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return 0
        fi
    done
    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "$(_foretell_words commands "$exe") help --help --version" -- "$cur"))
        return 0
    fi
    cmd=${COMP_WORDS[1]}
    if [[ $cmd == help ]]; then
        ((COMP_CWORD == 2)) &&
            COMPREPLY=($(compgen -W "$(_foretell_words commands "$exe")" -- "$cur"))
        return 0
    fi
    if [[ $cmd == batch ]]; then
        if ((COMP_CWORD == 2)); then
            COMPREPLY=($(compgen -W "$(_foretell_words commands "$exe" batch)" -- "$cur"))
            return 0
        fi
        sub=${COMP_WORDS[2]}
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "$(_foretell_words options "$exe" batch "$sub")" -- "$cur"))
            return 0
        fi
    elif [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_foretell_words options "$exe" "$cmd") --" -- "$cur"))
        return 0
    fi
    case $prev in
    -o|--output|--html|--work)
        COMPREPLY=($(compgen -d -- "$cur")) ;;
    *)
        COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
    return 0
}
complete -o filenames -F _foretell foretell
