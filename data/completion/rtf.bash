# SPDX-License-Identifier: LGPL-2.1-or-later
# bash completion for rtfd, rtfctl, rtf-latency, rtf-bench and rtf-budget.
# Installed as .../bash-completion/completions/rtfd, with a link per command
# (bash-completion loads a file by the command's name).  The options are read
# from each program's own --help, so that they never fall behind it.

_rtf_options() {
        "$1" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*=?' | sort -u
}

_rtf() {
        local cur prev words cword
        _init_completion -s || return

        case $prev in
        -c|--config|-a|--acl|--state-file|--rtfd|--plot)
                _filedir
                return ;;
        -s|--socket)
                if [[ ${words[0]##*/} != rtf-latency ]]; then
                        _filedir
                        return
                fi ;;
        -p|--plugindir|--cpuset-root)
                if [[ ${words[0]##*/} == rtfd ]]; then
                        _filedir -d
                        return
                fi ;;
        --load)
                COMPREPLY=($(compgen -W 'cpu io vm dohell' -- "$cur"))
                return ;;
        --compare)
                COMPREPLY=($(compgen -W 'cyclictest' -- "$cur"))
                return ;;
        -m|--mode)
                COMPREPLY=($(compgen -W 'hard soft both' -- "$cur"))
                return ;;
        esac
        $split && return

        if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "$(_rtf_options "${words[0]}")" -- "$cur"))
                [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        elif [[ ${words[0]##*/} == rtfctl ]]; then
                # the commands: indented words at the start of a line under "Commands:"
                COMPREPLY=($(compgen -W "$("${words[0]}" --help 2>/dev/null |
                        sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')" -- "$cur"))
        fi
}
complete -F _rtf rtfd rtfctl rtf-latency rtf-bench rtf-budget
