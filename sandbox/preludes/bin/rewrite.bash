# Shared by the curl and wget shims: rewrite URL arguments, collect the extra headers.
declare -A DETOUR_HOSTS=()
for pair in $DETOUR_REWRITE_HOSTS; do DETOUR_HOSTS[${pair%%=*}]=${pair#*=}; done

detour_rewrite_args() {
    DETOUR_ARGS=() DETOUR_EXTRA=()
    local arg service
    for arg in "$@"; do
        if [[ $arg =~ ^https?://([^/:?#]+)(:[0-9]+)?([/?#].*)?$ ]]; then
            service=${DETOUR_HOSTS[${BASH_REMATCH[1],,}]}
            if [[ -n $service ]]; then
                [[ ${#DETOUR_EXTRA[@]} -eq 0 ]] && readarray -t DETOUR_EXTRA <<< "$DETOUR_REWRITE_HEADERS" \
                    && DETOUR_EXTRA+=("$DETOUR_ORIGINAL_HOST_HEADER: ${BASH_REMATCH[1],,}")
                local rest=${BASH_REMATCH[3]:-/}
                [[ $rest == /* ]] || rest="/$rest"
                arg="$DETOUR_REWRITE_BASE/$service$rest"
            fi
        fi
        DETOUR_ARGS+=("$arg")
    done
}

detour_real_command() {
    local here dir
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    IFS=: read -ra dirs <<< "$PATH"
    for dir in "${dirs[@]}"; do
        [[ $dir != "$here" && -x $dir/$1 ]] && { echo "$dir/$1"; return; }
    done
    echo "detour: no real $1 on PATH" >&2
    exit 127
}
