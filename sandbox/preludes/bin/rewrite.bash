# Shared by the curl and wget shims: rewrite URL arguments, collect the extra headers.
# Routes are the registry's `host[/path]=service`; the longest matching one wins.

detour_service() {  # $1 host, $2 path: the service, or nothing
    local pair where best="" best_len=-1 prefix
    for pair in $DETOUR_REWRITE_HOSTS; do
        where=${pair%%=*}
        [[ $where == */* ]] && prefix="/${where#*/}" || prefix=""
        # shellcheck disable=SC2053  # a `*` segment of the prefix matches as a glob (the registry's any one segment)
        if [[ ${where%%/*} == "$1" && ${2//\/\//\/} == ${prefix}* && ${#prefix} -gt $best_len ]]; then
            best=${pair#*=} best_len=${#prefix}
        fi
    done
    echo "$best"
}

detour_rewrite_args() {
    DETOUR_ARGS=() DETOUR_EXTRA=()
    local arg service
    for arg in "$@"; do
        if [[ $arg =~ ^https?://([^/:?#]+)(:[0-9]+)?([/?#].*)?$ ]]; then
            local host=${BASH_REMATCH[1],,} rest=${BASH_REMATCH[3]:-/}
            [[ $rest == /* ]] || rest="/$rest"
            service=$(detour_service "$host" "${rest%%[?#]*}")
            if [[ -n $service ]]; then
                [[ ${#DETOUR_EXTRA[@]} -eq 0 ]] && readarray -t DETOUR_EXTRA <<< "$DETOUR_REWRITE_HEADERS" \
                    && DETOUR_EXTRA+=("$DETOUR_ORIGINAL_HOST_HEADER: $host")
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
