# SPDX-License-Identifier: LGPL-2.1-or-later
# bash completion for rtfd, rtfctl (its commands and their options), rtf-latency,
# rtf-bench, rtf-budget, rtf-sim and rtf-nexa.
# Installed as .../bash-completion/completions/rtfd, with a link per command
# (bash-completion loads a file by the command's name).  The options are read
# from each program's own --help, so that they never fall behind it.

# The options a help text defines: the words that start its option lines
# ("  -p, --period=US ..."), not those its descriptions mention.
_rtf_options() {
        "$@" --help 2>/dev/null |
                sed -nE 's/^ {1,8}(-[A-Za-z0-9], )?(--[a-z][a-z0-9-]*=?).*/\2/p' | sort -u
}

# rtfctl's command among the words before the cursor (options come first)
_rtf_ctl_command() {
        local i
        for ((i = 1; i < cword; i++)); do
                case ${words[i]} in
                status|tasks|top|reload|run|attach)
                        echo "${words[i]}"
                        return ;;
                --)
                        return ;;
                esac
        done
}

_rtf() {
        local cur prev words cword split
        _init_completion -s || return
        local prog=${words[0]##*/} sub=

        if [[ $prog == rtfctl ]]; then
                sub=$(_rtf_ctl_command)
                # rtfctl run ... -- COMMAND ...: complete the command and its arguments
                if [[ $sub == run ]]; then
                        local i
                        for ((i = 1; i < cword; i++)); do
                                if [[ ${words[i]} == -- ]]; then
                                        _command_offset $((i + 1))
                                        return
                                fi
                        done
                fi
        fi

        case $prev in
        -c|--config|-a|--acl|--state-file|--rtfd|--plot|--record|--record-iq|--record-vcd|--report|--pid-file)
                if [[ $prog != rtfctl && ! ($prog == rtf-budget && $prev == -c) ]]; then
                        _filedir
                        return
                fi ;;
        -s|--socket)
                if [[ $prog != rtf-latency ]]; then
                        _filedir
                        return
                fi ;;
        -p|--plugindir|--cpuset-root|--pipe-dir|--plugin-dir)
                if [[ $prog == rtfd || $prog == rtf-nexa || $prev == --plugin-dir ]]; then
                        _filedir -d
                        return
                fi ;;
        --pid)
                _pids
                return ;;
        --policy)
                COMPREPLY=($(compgen -W 'fifo rr deadline' -- "$cur"))
                return ;;
        --load)
                COMPREPLY=($(compgen -W 'cpu io vm dohell' -- "$cur"))
                return ;;
        --compare)
                COMPREPLY=($(compgen -W 'cyclictest' -- "$cur"))
                return ;;
        -m|--mode)
                COMPREPLY=($(compgen -W 'hard soft both' -- "$cur"))
                return ;;
        --check)
                COMPREPLY=($(compgen -W "$("${words[0]}" --list 2>/dev/null | cut -d' ' -f1)" -- "$cur"))
                return ;;
        --scenario)
                COMPREPLY=($(compgen -W 'issue-1 issue-2' -- "$cur"))
                return ;;
        --curves)
                COMPREPLY=($(compgen -W 'RM EDF RM2 EDF2' -- "$cur"))
                return ;;
        esac
        $split && return

        if [[ $cur == -* ]]; then
                if [[ $sub == run || $sub == attach || $sub == top ]]; then
                        COMPREPLY=($(compgen -W "$(_rtf_options "${words[0]}" "$sub")" -- "$cur"))
                else
                        COMPREPLY=($(compgen -W "$(_rtf_options "${words[0]}")" -- "$cur"))
                fi
                [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        elif [[ $prog == rtfctl && -z $sub ]]; then
                # the commands: indented words at the start of a line under "Commands:"
                COMPREPLY=($(compgen -W "$("${words[0]}" --help 2>/dev/null |
                        sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')" -- "$cur"))
        fi
}
complete -F _rtf rtfd rtfctl rtf-latency rtf-bench rtf-budget rtf-sim rtf-nexa
