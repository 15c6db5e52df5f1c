package io.switchboard.spring.internal;

import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.Observation;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Keeps Switchboard's own observations ({@code switchboard.publish}, {@code switchboard.handle})
 * away from Spring Boot's meter observation handler. Switchboard records its own timers of those
 * names (with the {@code broker} and {@code instance} tags, and percentile histograms when on); the handler
 * would register a second timer of the same name without them, which breaks
 * {@code /actuator/prometheus} (one metric family of two kinds). Tracing handlers still see the
 * observations. Wraps every {@link MeterObservationHandler} bean.
 */
public final class SwitchboardObservationsOutOfMeterHandler implements BeanPostProcessor {

    @Override
    @SuppressWarnings("unchecked")
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof MeterObservationHandler<?> handler && !(bean instanceof SkippingSwitchboard)) {
            return new SkippingSwitchboard((MeterObservationHandler<Observation.Context>) handler);
        }
        return bean;
    }

    static boolean isSwitchboard(Observation.Context context) {
        String name = context.getName();
        return name != null && name.startsWith("switchboard.");
    }

    /** A meter observation handler that declines Switchboard's observations and delegates the rest. */
    static final class SkippingSwitchboard implements MeterObservationHandler<Observation.Context> {
        private final MeterObservationHandler<Observation.Context> delegate;

        SkippingSwitchboard(MeterObservationHandler<Observation.Context> delegate) {
            this.delegate = delegate;
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return !isSwitchboard(context) && delegate.supportsContext(context);
        }

        @Override
        public void onStart(Observation.Context context) {
            delegate.onStart(context);
        }

        @Override
        public void onError(Observation.Context context) {
            delegate.onError(context);
        }

        @Override
        public void onEvent(Observation.Event event, Observation.Context context) {
            delegate.onEvent(event, context);
        }

        @Override
        public void onScopeOpened(Observation.Context context) {
            delegate.onScopeOpened(context);
        }

        @Override
        public void onScopeClosed(Observation.Context context) {
            delegate.onScopeClosed(context);
        }

        @Override
        public void onScopeReset(Observation.Context context) {
            delegate.onScopeReset(context);
        }

        @Override
        public void onStop(Observation.Context context) {
            delegate.onStop(context);
        }
    }
}
