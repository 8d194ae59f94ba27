# bash completion for ocasim (installed by make install as
# $(PREFIX)/share/bash-completion/completions/ocasim).
# Subcommands come from `ocasim --help`, a subcommand's options from `ocasim CMD --help`, the
# keys of --set from `ocasim schema --keys` (appliance) and `ocasim schema queueing_network
# --keys`, so that the completion never disagrees with the binary it runs.

_ocasim_words() # CMD...: the words to offer, from the binary in ${COMP_WORDS[0]}
{
  local bin=${COMP_WORDS[0]}
  case $1 in
    commands) "$bin" --help 2>/dev/null | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' ;;
    # the option column only: a description naming another command's option (--set's "ocasim
    # schema --keys lists the keys") is no option of this one
    options) "$bin" "$2" --help 2>/dev/null | grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u ;;
    keys) { "$bin" schema --keys; "$bin" schema queueing_network --keys; } 2>/dev/null | sort -u ;;
  esac
}

_ocasim()
{
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  COMPREPLY=()
  # bash splits "--set=key" at '=' (COMP_WORDBREAKS): rejoin the option and its value
  if [[ $cur == = && $COMP_CWORD -ge 2 ]]; then
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    cur=
  elif [[ $prev == = && $COMP_CWORD -ge 3 ]]; then
    prev=${COMP_WORDS[COMP_CWORD - 2]}
  fi
  if [[ $COMP_CWORD -eq 1 ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_ocasim_words commands) --help --version" -- "$cur")
    return
  fi
  local cmd=${COMP_WORDS[1]}
  case $prev in
    -s | --set)
      mapfile -t COMPREPLY < <(compgen -S = -W "$(_ocasim_words keys)" -- "$cur")
      compopt -o nospace 2>/dev/null
      return
      ;;
    -f | --format)
      local formats="table json csv"
      [[ $cmd == schema ]] && formats="markdown json"
      mapfile -t COMPREPLY < <(compgen -W "$formats" -- "$cur")
      return
      ;;
    --log)
      mapfile -t COMPREPLY < <(compgen -W "all requests all:info requests:info" -- "$cur")
      return
      ;;
    -o | --output | --write | --cert | --key | -k)
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return
      ;;
    --out | --work-dir | -r | --root)
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      return
      ;;
    --seed | --duration | --warmup | --rate-precision | -d | -w | --reps | -t | --threads | -p | --port | -c | --connections | -n | --requests | \
      --nice | --idle-timeout | --timeout | -b | --bind | -H | --host | -P | --path | --range | -m | --mode | --verify | \
      --tls-version | --cipher)
      return # a value: nothing to offer
      ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_ocasim_words options "$cmd")" -- "$cur")
    return
  fi
  case $cmd in
    run | check | bound | capacity | explain)
      mapfile -t COMPREPLY < <(compgen -f -X '!*.yaml' -- "$cur"; compgen -d -- "$cur")
      ;;
    schema) mapfile -t COMPREPLY < <(compgen -W "appliance platform queueing_network sweep" -- "$cur") ;;
    reference | fit) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
  esac
}
complete -F _ocasim ocasim
