package ai.gpustack.kvcache.api;

import java.util.Locale;

/**
 * Every refusal and warning the system words, with its cause and fix: the webhook's answers, the
 * reasons the operator holds a deployment or attaches nothing, and the warnings both give, so they
 * read alike wherever they appear. {@code docs/troubleshooting.md} is generated from this catalog.
 * A template's {@code %s} are filled in order; callers quote values themselves. Immutable.
 */
public enum Message {
  BINDING_DTYPE_AUTO(
      "\"auto\" lets each engine resolve its own from the model it loads, so it binds nothing: the"
          + " dtype is handed to every engine attached through this Binding as --kv-cache-dtype;"
          + " name the type, for example bfloat16",
      "A new Binding declares auto while model-deployment-kv-cache-dtype-owned is on.",
      "Declare the element type the engines should write, e.g. bfloat16 (docs/engines.md lists"
          + " what each engine accepts). Bindings stored with auto keep working."),
  BINDING_DTYPE_MODEL_DTYPE(
      "%s leaves the KV cache at the model's own dtype on %s, so it binds nothing: the dtype is"
          + " handed to every engine attached through this Binding; name the type, for example"
          + " bfloat16",
      "A new Binding declares a value that an engine reads as \"keep the model's dtype\" (like"
          + " auto) while model-deployment-kv-cache-dtype-owned is on.",
      "Declare the element type the engines should write (docs/engines.md maps each spelling to"
          + " its KV format). Bindings stored with such a value keep working."),
  BINDING_POOL_IMMUTABLE(
      "poolRef is immutable: the domain's blocks and quota live on that pool; create another"
          + " Binding to use another pool",
      "An update re-points spec.poolRef.",
      "Create a new Binding on the other pool and move the workloads to it."),
  BINDING_DOMAIN_NAME_IMMUTABLE(
      "name is immutable: the domain's blocks and ledger live under it; create a new Binding to"
          + " use another name",
      "An update renames spec.domain.name.",
      "Create a new Binding with the new name."),
  BINDING_BLOCK_SIZE_IMMUTABLE(
      "blockSize is immutable: blocks were written at this size, and reading them back at a new"
          + " one is silent corruption; create a new Binding with a new domain.name",
      "An update changes spec.domain.blockSize.",
      "Create a new Binding with the new block size and a new domain.name."),
  BINDING_DTYPE_IMMUTABLE(
      "dtype is immutable: blocks were written as this type, and reading them back as another one"
          + " is silent corruption; create a new Binding with a new domain.name (the upgrade"
          + " guide's recovery)",
      "An update changes spec.domain.dtype.",
      "Follow 'If new Pods fail argument parsing' in docs/upgrading-to-an-enforced-binding-dtype.md."),
  BINDING_DOMAIN_CLAIMED(
      "domain %s is already claimed by %s: both Bindings' pools name %s, and"
          + " one master keeps one ledger per domain name (Two masters hold two ledgers: the same"
          + " name on a pool of another backend is admitted), so a second %s is not permitted on"
          + " this master either; choose another spec.domain.name",
      "Another Binding whose pool is served by the same backend already holds this domain name.",
      "Choose another spec.domain.name; the old name is free once the holding Binding is gone."
          + " A holder in another namespace is not named: a refusal tells a tenant nothing of"
          + " another's objects."),
  BINDING_POOL_NOT_FOUND(
      "KVCachePool %s does not exist: create it first, or name an existing pool",
      "spec.poolRef names no pool.", "Create the KVCachePool, or fix the name."),
  BINDING_CEILING_OVER_POOL(
      "must not exceed the pool's own ceiling of %s (KVCachePool %s spec.quota.total)",
      "A new Binding asks for more than its pool holds.",
      "Lower spec.quota.ceiling, or raise the pool's spec.quota.total."),
  BINDING_CEILINGS_OVER_POOL(
      "would take the ceilings of the Bindings on KVCachePool %s to %s, over its spec.quota.total"
          + " of %s (the others reserve %s)",
      "The Bindings on one pool would together reserve more than the pool holds.",
      "Lower spec.quota.ceiling, lower or delete another Binding on the pool, or raise the pool's"
          + " spec.quota.total."),
  QUANTITY_NOT_POSITIVE(
      "must be a Kubernetes quantity greater than 0, for example 20Gi",
      "A quota is zero, negative, or not a quantity.",
      "Write a positive quantity such as 20Gi or 1Ti."),
  BINDING_DTYPE_UNKNOWN_WARNING(
      "spec.domain.dtype %s is accepted by no registered engine (%s at their newest spelling"
          + " tables): every engine attached through this Binding would fail argument parsing"
          + " unless its build is newer than its module's table; every registered engine accepts"
          + " %s",
      "Warning only: no registered engine module lists the spelling.",
      "Check the spelling against docs/engines.md; for an engine build newer than its module's"
          + " table, carry on."),
  BINDING_DTYPE_ATTACHED_WARNING(
      "spec.domain.dtype %s is rejected by engines already naming this Binding (%s); they share"
          + " %s",
      "Warning only: deployments already naming this Binding run engines that reject the spelling.",
      "Declare a spelling every attached engine accepts (docs/engines.md)."),
  POOL_ONE_BACKEND(
      "must name exactly one KVCacheBackend",
      "spec.backends is empty or names several backends.",
      "Name the one backend whose master the pool's domains live on."),
  POOL_BACKENDS_IMMUTABLE(
      "backends is immutable: the pool's domains and ledgers live on that backend; create a new"
          + " pool",
      "An update changes spec.backends.",
      "Create a new pool on the other backend."),
  BACKEND_EXTERNAL_REQUIRED(
      "this project supports external backends only: set spec.connection.external.clientEndpoint"
          + " to the host:port of an existing Mooncake master",
      "spec.connection.external is missing.",
      "Point the backend at an existing Mooncake master."),
  BACKEND_ENDPOINT_SYNTAX(
      "must be host:port: a DNS name, an IPv4 address or a bracketed IPv6 address, and a port from"
          + " 1 to 65535",
      "spec.connection.external.clientEndpoint is not host:port.",
      "Write it as mooncake-master.kv.svc:50051."),
  DEPLOYMENT_ROLES_REQUIRED(
      "a deployment has 1 to %s roles",
      "spec.roles is empty.", "Add a role, for example {name: server}."),
  DEPLOYMENT_ROLES_TOO_MANY(
      "%s roles: a deployment has at most %s",
      "spec.roles lists more than the maximum.", "Split the deployment."),
  DEPLOYMENT_ROLE_NAME(
      "a role is named like a Kubernetes object: %s",
      "A role's name is not a DNS-1123 label.", "Use lowercase letters, digits and '-'."),
  DEPLOYMENT_ROLE_DUPLICATE(
      "role names are unique within a deployment", "Two roles share a name.", "Rename one."),
  DEPLOYMENT_REPLICAS(
      "must be between 0 and 1024",
      "A role's replicas are out of range.",
      "Set replicas between 0 and 1024."),
  DEPLOYMENT_REPLICAS_OVER_CAP(
      "the roles ask for %d replicas in all, over model-deployment-max-replicas (%d)",
      "A deployment's roles together ask for more replicas than the Setting"
          + " model-deployment-max-replicas allows.",
      "Lower the roles' replicas, split the deployment, or (an administrator) raise the Setting."),
  DEPLOYMENT_IMAGE_NOT_ALLOWED(
      "%s is not from a registry model-deployment-image-registries allows (%s)",
      "A role's image, its own or its engine's default, is not under any registry the Setting"
          + " model-deployment-image-registries lists.",
      "Use an image from an allowed registry, or (an administrator) add its registry to the"
          + " Setting."),
  DEPLOYMENT_RESOURCE_QUANTITY(
      "must be a Kubernetes quantity, for example 8, 500m or 64Gi",
      "A role's resources name an amount that is not a quantity.",
      "Write the amount as a quantity."),
  DEPLOYMENT_RESOURCE_OVER_LIMIT(
      "must be less than or equal to %s limit of %s",
      "A role's resource request is above its limit; the API server would refuse its Pods.",
      "Lower the request or raise the limit."),
  DEPLOYMENT_RESOURCE_NOT_OVERCOMMITTED(
      "must be equal to %s limit of %s",
      "An extended resource (nvidia.com/gpu, hugepages) cannot be overcommitted: its request and"
          + " limit must be equal.",
      "Give the request and the limit the same amount, or give only the limit."),
  DEPLOYMENT_RESOURCE_LIMIT_REQUIRED(
      "Limit must be set for non overcommitable resources",
      "An extended resource (nvidia.com/gpu, hugepages) is requested without a limit.",
      "Give it a limit equal to the request (a limit alone also sets the request)."),
  DEPLOYMENT_IDENTITY(
      "%s is an identity field: a different value describes a different deployment, which is"
          + " created rather than edited",
      "An update changes model, engine.name, kvCache, the role set, or a role's name, kind or"
          + " command.",
      "Create a new deployment with the new value and delete the old one."),
  FLAG_CONNECTOR_OWNED(
      "%s passes %s, which is rendered for engine %s's cache connector: remove it%s",
      "A managed role's extraArgs, an injected container's command or args, or a workload"
          + " rendered through KvCacheArgs passes a flag the engine's cache connector owns (in any"
          + " spelling its engine reads as it).",
      "Remove the entry. A managed role may take its whole argv over with roles[].command."),
  ENV_OWNED(
      "%s sets %s, which is rendered for engine %s's cache client: remove it%s",
      "A managed role's or an injected container's env sets a variable the engine's cache client"
          + " owns.",
      "Remove the variable. A managed role may take the role over with roles[].command."),
  ENV_DTYPE_OWNED(
      "%s sets %s, which engine %s reads its KV-cache dtype from, while it attaches a KV cache"
          + " pool, but its dtype comes from %s: remove it%s",
      "A managed role's or an injected container's env sets a variable the engine reads its"
          + " KV-cache dtype from (llama.cpp's LLAMA_ARG_CACHE_TYPE_K) while"
          + " model-deployment-kv-cache-dtype-owned is on. The rendered flag would win on the"
          + " engines known, but the variable says another dtype than the Binding's.",
      "Remove the variable; the Binding's dtype reaches the engine on its dtype flags. A managed"
          + " role may take the role over with roles[].command."),
  FLAG_DTYPE_OWNED(
      "%s passes %s while it attaches a KV cache pool, but its dtype comes from %s, handed to"
          + " every engine attached through it: engines writing two dtypes into one reuse domain"
          + " read each other's blocks wrong; remove this entry and name a Binding that declares"
          + " the dtype you want%s",
      "A managed role of a pool-attached deployment, a container opting into injection, or a"
          + " workload rendered through KvCacheArgs passes --kv-cache-dtype (in any spelling its"
          + " engine reads as it) while model-deployment-kv-cache-dtype-owned is on. A stored"
          + " deployment keeps running on its own value, but every update is refused; an injected"
          + " Pod's owner reports FailedCreate.",
      "Remove the flag once the Binding's dtype is the one the workload should run. A managed"
          + " role may instead take its whole argv over with roles[].command."),
  ENGINE_UNKNOWN(
      "%s",
      "spec.engine.name (or the engine annotation) names no registered engine.",
      "Use a registered engine id (kvcache engines lists them) or add its module's jar."),
  ENGINE_VERSION_SCHEME(
      "engine %s numbers its versions as %s: the version picks the engine's dtype spellings and"
          + " flags, and one it does not read would pick them by guess",
      "spec.engine.version (or the kvcache.gpustack.ai/engine-version annotation) is not written"
          + " in the engine's version scheme (kvcache engines names it), for example a PEP 440"
          + " release number given to a build-numbered engine, or a tag such as latest.",
      "Write the version the engine itself reports (its --version or release tag), or leave it"
          + " out to use the newest tables."),
  ATTACH_BINDING_NOT_FOUND(
      "KVCachePoolBinding %s does not exist in namespace %s",
      "A deployment's spec.kvCache.poolRef.name, or an injected Pod's kvcache.gpustack.ai/binding"
          + " annotation, names no Binding in its namespace. The webhook refuses such a Pod; the"
          + " operator renders the deployment's replicas without a cache connector"
          + " (CacheAttached=False).",
      "Create the Binding, or name an existing one."),
  ATTACH_BINDING_DELETING(
      "KVCachePoolBinding %s is being deleted: no new workload may attach through it",
      "The Binding has a deletionTimestamp; it is held only until the workloads using it are gone.",
      "Attach through another Binding."),
  ATTACH_POOL_NOT_FOUND(
      "KVCachePool %s, which KVCachePoolBinding %s names, does not exist",
      "The Binding's pool is gone.", "Recreate the pool or attach through another Binding."),
  ATTACH_NO_ENDPOINT(
      "KVCachePool %s has no store endpoint to attach to: its KVCacheBackend %s %s, and the pool has"
          + " published none (status.clientEndpoint); see the pool's BackendResolved condition",
      "Neither the pool's backend (spec.connection.external.clientEndpoint) nor the pool's status"
          + " names the master the engine would connect to.",
      "Create the backend or give it an endpoint; attachments follow once it has one."),
  ATTACH_DTYPE_UNREADABLE(
      "KVCachePoolBinding %s stores spec.domain.dtype %s, which cannot be handed to the engine (%s):"
          + " the dtype is immutable, so create a Binding with a readable dtype and a new"
          + " domain.name and move the workloads to it, or turn model-deployment-kv-cache-dtype-owned"
          + " off",
      "The Binding was stored before validation or around the webhook with a dtype that is empty,"
          + " not lowercase or longer than 32 characters. Nothing is rendered from it: the webhook"
          + " refuses Pods attaching through it and the operator holds its deployments on their"
          + " last good render (DtypeAccepted=False).",
      "Follow 'If new Pods fail argument parsing' in docs/upgrading-to-an-enforced-binding-dtype.md."),
  ATTACH_HELD(
      "%s. The rollout is held: replicas keep their last good render (see 'If new Pods fail"
          + " argument parsing' in the upgrade guide)",
      "The operator does not roll a deployment into Pods its engine would exit on; it reports"
          + " DtypeAccepted=False and an event.",
      "Fix the cause named before this sentence."),
  DTYPE_REJECTED_BY_ENGINE(
      "%s declares dtype %s, which engine %s%s does not accept (table %s): every"
          + " replica would fail argument parsing; %s accepts %s, and every registered engine"
          + " accepts %s. Attach a Binding that declares one of these (a new Binding with a new"
          + " domain.name: the dtype is immutable), or set the Setting"
          + " kv-cache-dtype-spelling-check to Warn if the engine build is newer than its"
          + " module's table",
      "The attached engine's spelling table does not list the Binding's dtype, so the engine would"
          + " exit on it (for example bf16 on vLLM, fp8 or float16 on SGLang).",
      "Move the Binding's workloads to a new Binding with a spelling every attached engine"
          + " accepts: kvcache migrate --binding NAMESPACE/NAME --dtype DTYPE shows the plan and"
          + " carries it out with --apply ('If new Pods fail argument parsing' in the upgrade guide"
          + " has the manual steps); or relax the check with kv-cache-dtype-spelling-check."),
  FORMAT_DIFFERS_IN_DOMAIN(
      "KVCachePoolBinding %s (domain %s) holds one KV format, but dtype %s on %s stores %s while"
          + " the domain stores %s since %s (%s): engines writing two formats into one domain"
          + " read each other's blocks wrong. Attach through a Binding with a new domain.name, or"
          + " run an engine version that stores %s as %s",
      "The same spelling means different bytes on different engines or versions (vLLM's fp8 was"
          + " FP8 E5M2 in 0.4.x and is E4M3 since 0.5.0). Under Enforce the webhook refuses the"
          + " newcomer and the operator holds a stored deployment whose format differs from the"
          + " domain's earliest attachment (DtypeAccepted=False, FormatDiffersInDomain); under"
          + " Warn both only warn.",
      "Give the engine version that disagrees a Binding with a new domain.name, or move it to a"
          + " version that stores the domain's format (kvcache engines lists the formats)."),
  FORMAT_MODEL_DEPENDENT(
      "KVCachePoolBinding %s declares %s, whose KV format each engine resolves from the model it"
          + " loads (%s): the domain holds one format only while every checkpoint resolves it"
          + " alike; declare the element type in a new Binding to have it checked",
      "A Binding stored with auto: each engine picks the model's dtype, or a KV quantization its"
          + " checkpoint asks for, so the format check cannot compare them.",
      "Create a Binding that names the element type (for example bfloat16) with a new domain.name"
          + " and move the workloads to it."),
  FORMAT_UNMAPPED(
      "engine %s does not say which KV format %s stores (its module maps no format for it), so"
          + " the domain's one-format check cannot compare it",
      "The engine module predates KV formats or leaves a spelling unmapped; the contract kit"
          + " fails such a module.",
      "Update the engine module."),
  KV_FORMAT_FLAG(
      "%s passes %s, which %s: engines writing this domain without it store other bytes, and"
          + " read this engine's blocks wrong",
      "Besides the dtype flag, some flags change what the KV cache holds (vLLM's"
          + " --kv-cache-dtype-skip-layers, KV scales, a --config file). The Pod or role is"
          + " admitted; the domain's engines may disagree.",
      "Remove the flag, pass it on every engine of the domain, or give this engine a Binding of"
          + " its own."),
  DTYPE_OBSERVED_DIFFERS(
      "%s: engines writing two dtypes into one domain read each other's blocks wrong; remove the"
          + " replica's own dtype (a role's extraArgs, a --config file) or give it a Binding of its"
          + " own",
      "A Ready replica's engine reports another KV-cache dtype than its Binding declares"
          + " (DtypeObserved=False, reason Differs; a Warning event DtypeDiffers; kvcache verify"
          + " prints differs): a stored role passing its own --kv-cache-dtype after the rendered"
          + " one, a --config file, a Pod that escaped the webhook, a Binding stored before the"
          + " check, or an engine build whose defaults changed.",
      "Run kvcache verify to see each replica's argv and report; remove the role's own flag"
          + " (kubectl patch or edit: the webhook admits an edit that removes it), or move the"
          + " workload to a Binding declaring what it runs."),
  DTYPE_OBSERVED_UNREACHABLE(
      "%s; read again with backoff",
      "The operator could not read a Ready replica's engine endpoint through the API server's"
          + " Pod proxy (DtypeObserved=Unknown, reason Unreachable): the engine is not listening"
          + " on its port yet, the port is another than the argv says, the whole answer did not"
          + " arrive within 5 s or was larger than 256 KiB, it answered with a redirect (never"
          + " followed: it would carry the operator's credentials elsewhere), or RBAC lacks"
          + " pods/proxy get.",
      "Check the replica serves its metrics or server-info path (kubectl get --raw"
          + " /api/v1/namespaces/NS/pods/NAME:PORT/proxy/PATH) and that the operator's role"
          + " grants pods/proxy get. Nothing is held meanwhile."),
  POD_UNKNOWN_KEY(
      "%s is not a KV cache injection key; the keys are %s",
      "The Pod carries a kvcache.gpustack.ai/* key the webhook does not read (or one only the"
          + " webhook writes).",
      "Remove it; see docs/injection.md for the keys."),
  POD_BINDING_REQUIRED(
      "name the KVCachePoolBinding in the Pod's namespace that attaches it",
      "The binding annotation is missing.",
      "Annotate kvcache.gpustack.ai/binding: <binding>."),
  POD_BINDING_NAMESPACED(
      "names a Binding in the Pod's own namespace, without a namespace part",
      "The binding annotation holds a '/'.",
      "Create the Binding in the Pod's namespace and name it alone."),
  POD_ENGINE_REQUIRED(
      "name the engine the container runs (%s); it is never guessed from the image",
      "The engine annotation is missing.",
      "Annotate kvcache.gpustack.ai/engine: vLLM (or another registered engine)."),
  POD_CONTAINER_REQUIRED(
      "the Pod has %s containers: name the engine's with kvcache.gpustack.ai/container",
      "Several containers and no container annotation.",
      "Annotate kvcache.gpustack.ai/container: <name>."),
  POD_CONTAINER_NOT_FOUND(
      "the Pod has no container %s (its containers: %s)",
      "The container annotation names no container.", "Fix the annotation."),
  POD_CONTAINER_INIT(
      "%s is an init container: the engine runs in a regular container",
      "The container annotation names an init container.", "Name the engine's regular container."),
  POD_NO_ARGV(
      "container %s has neither command nor args, so there is no argv to attach the cache to",
      "The target container relies on the image's entrypoint and passes nothing.",
      "Set command (and args) to the engine's launch."),
  POD_SHELL_LAUNCH(
      "container %s launches through %s: arguments appended to a shell command string never reach"
          + " the engine; run the engine's program directly",
      "The target container starts with sh -c (or another shell).",
      "Set command to the engine's program and pass its arguments in args."),
  POD_SCRIPT_LAUNCH(
      "container %s launches the script %s: whether it forwards appended arguments to the engine"
          + " cannot be known; run the engine's program directly",
      "The target container starts a .sh script.",
      "Set command to the engine's program and pass its arguments in args."),
  POD_UNKNOWN_LAUNCH(
      "container %s launches %s, which is not an entry point of engine %s (%s): appended"
          + " arguments may never reach it; run the engine's program directly, or annotate"
          + " kvcache.gpustack.ai/launch-args-forwarded: \"true\" if the launcher passes its"
          + " arguments on",
      "The webhook cannot tell that the target container's launcher forwards arguments.",
      "Run the engine's program, or vouch with the launch-args-forwarded annotation."),
  POD_LAUNCH_FORWARDED_VALUE(
      "must be \"true\" or absent",
      "The launch-args-forwarded annotation holds another value.",
      "Set it to \"true\" or remove it."),
  POD_VOLUME_TAKEN(
      "the webhook mounts the store-client configuration as volume %s: rename this volume",
      "The Pod already has a volume with the name the injection uses.", "Rename the Pod's volume."),
  POD_FROZEN(
      "%s is frozen after injection: it records what was done to this Pod at creation; recreate"
          + " the Pod to change it",
      "An update edits, adds or removes the inject label or an injection record annotation.",
      "Leave them alone; recreate the Pod instead."),
  SETTING_UNKNOWN(
      "no Setting is named %s; the catalog is %s",
      "The Setting is not in the fixed catalog.", "Use one of the catalog's names."),
  SETTING_NAMESPACE(
      "Settings live in namespace %s",
      "A Setting was written to another namespace.", "Write it to gpustack-system."),
  SETTING_VALUE(
      "%s",
      "The value is not of the Setting's kind.",
      "Write a value the Setting takes (docs/settings.md)."),
  UNREADABLE("%s", "The object does not parse as its kind.", "Fix the field named.");

  private final String template;
  private final String cause;
  private final String fix;

  Message(String template, String cause, String fix) {
    this.template = template;
    this.cause = cause;
    this.fix = fix;
  }

  /** The message with {@code args} filled in. */
  public String detail(Object... args) {
    return String.format(Locale.ROOT, template, args);
  }

  public String template() {
    return template;
  }

  public String cause() {
    return cause;
  }

  public String fix() {
    return fix;
  }
}
