package com.example.consumer;

import ai.gpustack.kvcache.api.Problem;
import ai.gpustack.kvcache.attach.Attachment;
import ai.gpustack.kvcache.attach.AttachmentResolver;
import ai.gpustack.kvcache.attach.BindingRef;
import ai.gpustack.kvcache.attach.ConfigVolume;
import ai.gpustack.kvcache.attach.KvCacheArgs;
import ai.gpustack.kvcache.attach.Workload;
import ai.gpustack.kvcache.attach.WorkloadArgs;
import ai.gpustack.kvcache.cluster.CachedClusterView;
import ai.gpustack.kvcache.cluster.ClusterView;
import ai.gpustack.kvcache.resources.KVCacheBackend;
import ai.gpustack.kvcache.resources.KVCachePool;
import ai.gpustack.kvcache.resources.KVCachePoolBinding;
import ai.gpustack.kvcache.resources.Keys;
import ai.gpustack.kvcache.resources.Setting;
import ai.gpustack.kvcache.spi.Engine;
import ai.gpustack.kvcache.spi.EngineRegistry;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Renders a ChatServer into one Pod with gpustack-kvcache's rules: the Binding resolved as the
 * reference operator resolves it, the argv from {@link KvCacheArgs}, refusals worded at this
 * resource's own field paths. The informer caches it registers are also what the embedded webhook
 * reads ({@link #caches()}), so the process opens each watch once.
 */
public final class ChatServerReconciler implements Reconciler<ChatServer> {
  private final EngineRegistry engines;
  private final KvCacheArgs kv;
  private final AttachmentResolver resolver;
  private final Map<Class<?>, InformerEventSource<?, ChatServer>> informers =
      new ConcurrentHashMap<>();

  public ChatServerReconciler(EngineRegistry engines) {
    this.engines = engines;
    this.kv = KvCacheArgs.of(engines);
    this.resolver = new AttachmentResolver(engines);
  }

  /** The caches this reconciler keeps, for a {@link CachedClusterView}: empty until started. */
  public CachedClusterView.Caches caches() {
    return kind -> {
      InformerEventSource<?, ChatServer> informer = informers.get(kind);
      return informer == null ? List.of() : informer.list().toList();
    };
  }

  @Override
  public List<EventSource<?, ChatServer>> prepareEventSources(
      EventSourceContext<ChatServer> context) {
    List<EventSource<?, ChatServer>> sources = new ArrayList<>();
    sources.add(
        watch(
            KVCachePoolBinding.class,
            context,
            b ->
                context
                    .getPrimaryCache()
                    .list(b.getMetadata().getNamespace())
                    .filter(s -> b.getMetadata().getName().equals(s.getSpec().binding))));
    sources.add(watch(KVCachePool.class, context, p -> context.getPrimaryCache().list()));
    sources.add(watch(KVCacheBackend.class, context, b -> context.getPrimaryCache().list()));
    sources.add(watch(Setting.class, context, s -> context.getPrimaryCache().list()));
    InformerEventSource<Pod, ChatServer> pods =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Pod.class, ChatServer.class).build(), context);
    informers.put(Pod.class, pods);
    sources.add(pods);
    return sources;
  }

  private <R extends HasMetadata> InformerEventSource<R, ChatServer> watch(
      Class<R> kind,
      EventSourceContext<ChatServer> context,
      java.util.function.Function<R, Stream<ChatServer>> primaries) {
    InformerEventSource<R, ChatServer> informer =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(kind, ChatServer.class)
                .withWatchAllNamespaces()
                .withSecondaryToPrimaryMapper(
                    r -> primaries.apply(r).map(ResourceID::fromResource).collect(Collectors.toSet()))
                .build(),
            context);
    informers.put(kind, informer);
    return informer;
  }

  @Override
  public UpdateControl<ChatServer> reconcile(ChatServer server, Context<ChatServer> context) {
    ChatServer.Spec spec = server.getSpec();
    ChatServer.Status status = new ChatServer.Status();
    Optional<Engine> engine = engines.find(spec.engine);
    ClusterView cluster = CachedClusterView.over(caches());
    if (engine.isEmpty()) {
      status.refusals.add("spec.engine: " + engines.unknown(spec.engine));
      return done(server, status);
    }
    Optional<String> version = Optional.ofNullable(spec.engineVersion);
    Attachment attachment =
        resolver.resolve(
            new BindingRef(server.getMetadata().getNamespace(), spec.binding, "spec.binding"),
            Workload.stored("ChatServer", server.getMetadata()),
            engine.get(),
            version,
            cluster.settings(),
            cluster);
    if (attachment.refusal().isPresent() && attachment.endpoint().isEmpty()) {
      status.refusals.add("spec.binding: " + attachment.refusal().get().message());
      return done(server, status);
    }
    KVCachePoolBinding binding = attachment.binding().orElseThrow();
    KvCacheArgs.Rendered rendered =
        kv.managedCommand(
            WorkloadArgs.builder()
                .engine(spec.engine)
                .engineVersion(version)
                .model(spec.model)
                .domain(binding.getSpec().domain())
                .clientEndpoint(attachment.endpoint().orElseThrow())
                .tenant(attachment.tenant())
                .addAllArgs(spec.args)
                .argsPath("spec.args")
                .dtypePath("spec.binding")
                .dtypeSource("KVCachePoolBinding \"" + spec.binding + "\"")
                .settings(cluster.settings())
                .build());
    rendered.refusals().stream().map(Problem::message).forEach(status.refusals::add);
    status.warnings.addAll(attachment.warnings());
    status.warnings.addAll(rendered.warnings());
    if (rendered.attaches()) {
      Pod pod = pod(server, rendered);
      Pod current = context.getSecondaryResource(Pod.class).orElse(null);
      if (current == null || !Objects.equals(command(current), rendered.argv())) {
        if (current != null) {
          context.getClient().resource(current).delete();
        }
        context.getClient().resource(pod).create();
      }
      status.attached = true;
      status.argv.addAll(rendered.argv());
    }
    return done(server, status);
  }

  private static UpdateControl<ChatServer> done(ChatServer server, ChatServer.Status status) {
    server.setStatus(status);
    return UpdateControl.patchStatus(server);
  }

  private static List<String> command(Pod pod) {
    return pod.getSpec().getContainers().get(0).getCommand();
  }

  /** One Pod running the rendered argv, with the store client's config mounted. */
  private static Pod pod(ChatServer server, KvCacheArgs.Rendered rendered) {
    ContainerBuilder container =
        new ContainerBuilder()
            .withName("server")
            .withImage(server.getSpec().image)
            .withCommand(rendered.argv())
            .withEnv(
                rendered.env().stream()
                    .map(e -> new EnvVarBuilder().withName(e.name()).withValue(e.value()).build())
                    .toList());
    PodBuilder pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(server.getMetadata().getName() + "-0")
            .withNamespace(server.getMetadata().getNamespace())
            .addToLabels("app.kubernetes.io/instance", server.getMetadata().getName())
            .endMetadata();
    rendered
        .clientConfig()
        .ifPresent(
            config -> {
              pod.editMetadata().addToAnnotations(Keys.CLIENT_CONFIG, config.content()).endMetadata();
              container.addToVolumeMounts(ConfigVolume.mount(config));
              pod.editOrNewSpec().addToVolumes(ConfigVolume.volume(config)).endSpec();
            });
    Pod built = pod.editOrNewSpec().withContainers(container.build()).endSpec().build();
    built.addOwnerReference(server);
    return built;
  }
}
